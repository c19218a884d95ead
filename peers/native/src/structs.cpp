#include "structs.hpp"

#include "payload.hpp"

namespace ipclab {

namespace {

struct Shape {
  int ints, strings, bools, doubles, int_seqs, string_seqs, double_seqs;
};

Shape shape_of(PayloadKind k) {
  switch (k) {
    case PayloadKind::small: return {2, 1, 1, 0, 1, 0, 0};
    case PayloadKind::medium: return {4, 2, 2, 2, 1, 1, 0};
    case PayloadKind::large: return {10, 8, 5, 5, 2, 2, 2};
    case PayloadKind::bytes: break;
  }
  return {0, 0, 0, 0, 0, 0, 0};
}

class SplitMix {
 public:
  explicit SplitMix(std::uint64_t state) : state_(state) {}
  std::uint64_t next() noexcept {
    state_ += kGolden;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::int32_t an_int() noexcept {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(next() & 0xFFFFFFFFu));
  }
  std::string a_string() {
    const std::size_t n = 4 + next() % 29;
    std::string s(n, ' ');
    for (auto& c : s) c = kAlphabet[next() % 62];
    return s;
  }
  bool a_bool() noexcept { return (next() & 1) == 1; }
  double a_double() noexcept {
    return static_cast<double>(next() >> 11) * 0x1p-33;  // exact: 53 bits times a power of two
  }

 private:
  std::uint64_t state_;
};

template <class T>
std::string first_seq_difference(const std::string& name, const std::vector<std::vector<T>>& a,
                                 const std::vector<std::vector<T>>& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const std::string field = name + std::to_string(i + 1);
    if (a[i].size() != b[i].size())
      return field + " (length " + std::to_string(b[i].size()) + ", expected " +
             std::to_string(a[i].size()) + ")";
    for (std::size_t j = 0; j < a[i].size(); ++j)
      if (!(a[i][j] == b[i][j])) return field + "[" + std::to_string(j) + "]";
  }
  return a.size() == b.size() ? "" : name + " (field count)";
}

template <class V>
std::string first_plain_difference(const std::string& name, const V& a, const V& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (!(a[i] == b[i])) return name + std::to_string(i + 1);
  return a.size() == b.size() ? "" : name + " (field count)";
}

}  // namespace

const char* payload_kind_name(PayloadKind k) noexcept {
  switch (k) {
    case PayloadKind::bytes: return "bytes";
    case PayloadKind::small: return "small";
    case PayloadKind::medium: return "medium";
    case PayloadKind::large: return "large";
  }
  return "bytes";
}

std::optional<PayloadKind> parse_payload_kind(const std::string& name) noexcept {
  if (name == "bytes") return PayloadKind::bytes;
  if (name == "small") return PayloadKind::small;
  if (name == "medium") return PayloadKind::medium;
  if (name == "large") return PayloadKind::large;
  return std::nullopt;
}

Record make_record(std::uint64_t seed, PayloadKind kind, std::uint32_t sequence_length) {
  const Shape sh = shape_of(kind);
  SplitMix g(seed ^ (3 * kGolden));
  Record r;
  for (int i = 0; i < sh.ints; ++i) r.n.push_back(g.an_int());
  for (int i = 0; i < sh.strings; ++i) r.s.push_back(g.a_string());
  for (int i = 0; i < sh.bools; ++i) r.b.push_back(g.a_bool());
  for (int i = 0; i < sh.doubles; ++i) r.d.push_back(g.a_double());
  r.li.resize(sh.int_seqs);
  for (auto& v : r.li)
    for (std::uint32_t j = 0; j < sequence_length; ++j) v.push_back(g.an_int());
  r.ls.resize(sh.string_seqs);
  for (auto& v : r.ls)
    for (std::uint32_t j = 0; j < sequence_length; ++j) v.push_back(g.a_string());
  r.ld.resize(sh.double_seqs);
  for (auto& v : r.ld)
    for (std::uint32_t j = 0; j < sequence_length; ++j) v.push_back(g.a_double());
  return r;
}

std::string first_record_difference(const Record& want, const Record& got) {
  for (const std::string& d :
       {first_plain_difference("n", want.n, got.n), first_plain_difference("s", want.s, got.s),
        first_plain_difference("b", want.b, got.b), first_plain_difference("d", want.d, got.d),
        first_seq_difference("li", want.li, got.li), first_seq_difference("ls", want.ls, got.ls),
        first_seq_difference("ld", want.ld, got.ld)})
    if (!d.empty()) return d;
  return "";
}

}  // namespace ipclab
