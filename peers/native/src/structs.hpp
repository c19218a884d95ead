// Structured payloads of PROTOCOL.md section 10.2: the Small / Medium / Large records, generated
// from splitmix64 (stream 3), in a framework-neutral form each RPC binding converts from and to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ipclab {

enum class PayloadKind { bytes, small, medium, large };

// --value-range (contract 6): how an int field is drawn from next(): full = `next() AND
// 0xFFFFFFFF` as two's complement, non_negative = `next() AND 0x7FFFFFFF`. Either way one next()
// per int, so every other field is the same.
enum class ValueRange { full, non_negative };

const char* payload_kind_name(PayloadKind k) noexcept;
std::optional<PayloadKind> parse_payload_kind(const std::string& name) noexcept;

// Fields in generation order: n1…, s1…, b1…, d1…, li1…, ls1…, ld1… (index 0 is field 1).
struct Record {
  std::vector<std::int32_t> n;
  std::vector<std::string> s;
  std::vector<bool> b;
  std::vector<double> d;
  std::vector<std::vector<std::int32_t>> li;
  std::vector<std::vector<std::string>> ls;
  std::vector<std::vector<double>> ld;
  bool operator==(const Record&) const = default;  // doubles compared exactly
};

// record(seed, kind, sequence_length) of protocol/vectors/generate.py, before its stamp: the
// first record of RecordStream(seed, kind, sequence_length, range).
Record make_record(std::uint64_t seed, PayloadKind kind, std::uint32_t sequence_length,
                   ValueRange range = ValueRange::full);

// The records of one splitmix64 stream (10.2; --records per-call): record 1 is make_record's,
// record k+1 continues from the state record k left. next() writes into the record it is given
// and reuses its storage (a string written over gets room for the longest, 32 characters), so
// from the third record on, filling one allocates nothing.
class RecordStream {
 public:
  RecordStream(std::uint64_t seed, PayloadKind kind, std::uint32_t sequence_length,
               ValueRange range = ValueRange::full) noexcept;
  void next(Record& r);

 private:
  std::uint64_t state_;
  PayloadKind kind_;
  std::uint32_t sequence_length_;
  std::uint32_t int_mask_;
};

// The per-call stamp: n1 = sequence AND 0x7FFFFFFF.
inline std::int32_t record_stamp(std::uint64_t sequence) noexcept {
  return static_cast<std::int32_t>(sequence & 0x7FFFFFFFu);
}

// The first field where two records of the same kind differ ("n1", "ls2[3]"), or empty.
std::string first_record_difference(const Record& want, const Record& got);

}  // namespace ipclab
