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
  std::uint64_t state() const noexcept { return state_; }
  std::uint64_t next() noexcept {
    state_ += kGolden;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // mask: 0xFFFFFFFF (two's complement) or 0x7FFFFFFF (non-negative).
  std::int32_t an_int(std::uint32_t mask) noexcept {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(next() & mask));
  }
  // Into s. A string written over (the record of a previous call) is given room for the
  // longest once, so the records after it allocate nothing; a new one is made to measure.
  void a_string(std::string& s) {
    if (!s.empty() && s.capacity() < kLongestString) s.reserve(kLongestString);
    s.resize(4 + next() % 29);
    for (auto& c : s) c = kAlphabet[next() % 62];
  }
  bool a_bool() noexcept { return (next() & 1) == 1; }
  double a_double() noexcept {
    return static_cast<double>(next() >> 11) * 0x1p-33;  // exact: 53 bits times a power of two
  }

  static constexpr std::size_t kLongestString = 32;  // 4 + 28

 private:
  std::uint64_t state_;
};

// One record of the shape, field by field in generation order (10.2), written over r's fields
// (resized, not rebuilt: the storage of a previous record of the same shape is reused).
void fill_record(SplitMix& g, const Shape& sh, std::uint32_t sequence_length,
                 std::uint32_t int_mask, Record& r) {
  r.n.resize(sh.ints);
  for (auto& v : r.n) v = g.an_int(int_mask);
  r.s.resize(sh.strings);
  for (auto& v : r.s) g.a_string(v);
  r.b.resize(sh.bools);
  for (std::size_t i = 0; i < r.b.size(); ++i) r.b[i] = g.a_bool();
  r.d.resize(sh.doubles);
  for (auto& v : r.d) v = g.a_double();
  r.li.resize(sh.int_seqs);
  for (auto& seq : r.li) {
    seq.resize(sequence_length);
    for (auto& v : seq) v = g.an_int(int_mask);
  }
  r.ls.resize(sh.string_seqs);
  for (auto& seq : r.ls) {
    seq.resize(sequence_length);
    for (auto& v : seq) g.a_string(v);
  }
  r.ld.resize(sh.double_seqs);
  for (auto& seq : r.ld) {
    seq.resize(sequence_length);
    for (auto& v : seq) v = g.a_double();
  }
}

constexpr std::uint32_t int_mask_of(ValueRange range) noexcept {
  return range == ValueRange::non_negative ? 0x7FFFFFFFu : 0xFFFFFFFFu;
}

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

RecordStream::RecordStream(std::uint64_t seed, PayloadKind kind, std::uint32_t sequence_length,
                           ValueRange range) noexcept
    : state_(seed ^ (3 * kGolden)),
      kind_(kind),
      sequence_length_(sequence_length),
      int_mask_(int_mask_of(range)) {}

void RecordStream::next(Record& r) {
  SplitMix g(state_);
  fill_record(g, shape_of(kind_), sequence_length_, int_mask_, r);
  state_ = g.state();
}

Record make_record(std::uint64_t seed, PayloadKind kind, std::uint32_t sequence_length,
                   ValueRange range) {
  Record r;
  RecordStream(seed, kind, sequence_length, range).next(r);
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
