// The part of a framework's client session that every framework shares (PROTOCOL.md 10.1 and
// 10.2), written once over the framework's invoke: the structured record converted once into
// the framework's generated type, n1 stamped before each call, the stub called, the reply
// converted back after the clock; and every call's framework errors mapped to PeerErrors.
//
// A framework's session derives from FrameworkSession<Self, Records>. Self provides
//   void invoke(const T& in, Records::Reply<T>& out)   for T in Small, Medium, Large: the stub
//                                                       call (may throw the framework's errors)
//   void invoke_put(const T& in)                        the void stub call (--void)
//   [[noreturn]] static void rethrow(const char* what)  called inside a catch: maps the current
//                                                       exception to a PeerError
// and its own prepare_call / call / response / finish (calling through guarded()). Records
// provides the three generated types Small, Medium, Large, Reply<T> (how a reply is held),
// to_message(const Record&, T&), from_message(const Reply<T>&) and set_n1(T&, std::int32_t);
// RecordTypes below gives the usual ones.
#pragma once

#include <type_traits>
#include <utility>
#include <variant>

#include "error.hpp"
#include "rpc/rpc.hpp"

namespace ipclab::rpc {

// The usual Records: replies held by value, n1 a public field. A framework's Records derives
// from it, adds its conversions (IPCLAB_CONVERSIONS of fields.hpp) and hides what differs.
template <class SmallT, class MediumT, class LargeT>
struct RecordTypes {
  using Small = SmallT;
  using Medium = MediumT;
  using Large = LargeT;
  template <class T>
  using Reply = T;
  template <class T>
  static void set_n1(T& m, std::int32_t n1) {
    m.n1 = n1;
  }
};

template <class Self, class Records>
class FrameworkSession : public Session {
 public:
  // Called again with a record of the same kind (--records per-call), it converts into the
  // message it made, so the framework's storage is reused where its types allow.
  void prepare_echo(PayloadKind kind, const Record& record) final {
    const std::size_t index = kind == PayloadKind::small    ? 1
                              : kind == PayloadKind::medium ? 2
                                                            : 3;  // value_'s alternatives
    if (value_.index() != index) {
      switch (kind) {
        case PayloadKind::small: value_.template emplace<Echo<typename Records::Small>>(); break;
        case PayloadKind::medium:
          value_.template emplace<Echo<typename Records::Medium>>();
          break;
        default: value_.template emplace<Echo<typename Records::Large>>(); break;
      }
    }
    each([&](auto& e) { Records::to_message(record, e.in); });
  }
  void stamp_echo(std::int32_t n1) final {
    each([&](auto& e) { Records::set_n1(e.in, n1); });
  }
  void echo() final {
    guarded("echo", [&] { each([&](auto& e) { static_cast<Self&>(*this).invoke(e.in, e.out); }); });
  }
  void put_record() final {
    guarded("put", [&] { each([&](auto& e) { static_cast<Self&>(*this).invoke_put(e.in); }); });
  }
  Record echoed() final {
    Record r;
    each([&](auto& e) { r = Records::from_message(e.out); });
    return r;
  }

 protected:
  // f() with the framework's exceptions turned into PeerErrors naming what was called.
  template <class F>
  static decltype(auto) guarded(const char* what, F&& f) {
    try {
      return std::forward<F>(f)();
    } catch (const PeerError&) {
      throw;
    } catch (...) {
      Self::rethrow(what);
    }
  }

 private:
  template <class T>
  struct Echo {
    T in;
    typename Records::template Reply<T> out;
  };
  // Calls f on the record prepared by prepare_echo.
  template <class F>
  void each(F&& f) {
    std::visit(
        [&](auto& e) {
          if constexpr (!std::is_same_v<std::decay_t<decltype(e)>, std::monostate>) f(e);
        },
        value_);
  }

  std::variant<std::monostate, Echo<typename Records::Small>, Echo<typename Records::Medium>,
               Echo<typename Records::Large>>
      value_;
};

}  // namespace ipclab::rpc
