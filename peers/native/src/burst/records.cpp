#include "burst/records.hpp"

#include <charconv>
#include <cstring>

namespace ipclab::burst {

std::string_view conn_error_name(ConnError e) noexcept {
  switch (e) {
    case ConnError::none: return "";
    case ConnError::eof: return "eof";
    case ConnError::reset: return "reset";
    case ConnError::protocol: return "protocol";
    case ConnError::payload_mismatch: return "payload-mismatch";
    case ConnError::io: return "io";
    case ConnError::lost: return "lost";
    case ConnError::refused: return "refused";
    case ConnError::timeout: return "timeout";
    case ConnError::not_sent: return "not-sent";
  }
  return "io";
}

namespace {

std::int64_t span(std::int64_t from, std::int64_t to) noexcept {
  return from != 0 && to != 0 ? to - from : kEmpty;
}

}  // namespace

char* put_text(char* out, std::string_view text) noexcept {
  std::memcpy(out, text.data(), text.size());
  return out + text.size();
}

char* put_field(char* out, std::int64_t v) noexcept {
  if (v != kEmpty) out = std::to_chars(out, out + 24, v).ptr;
  *out++ = ',';
  return out;
}

Phases phases_of(const ConnTimes& t) noexcept {
  Phases p{};
  const bool finished = t.finished();
  p.accept = span(t.accept_start, t.accept_end);
  p.loop = span(t.accept_end, t.next_accept_start);
  p.spawn = span(t.spawn_start, t.spawn_end);
  p.start_delay = span(t.spawn_start, t.task_start);
  p.transfer = finished ? span(t.transfer_start, t.transfer_end) : kEmpty;
  p.total = finished ? span(t.accept_end, t.close_end) : kEmpty;
  p.error = finished ? static_cast<ConnError>(t.error) : ConnError::lost;
  return p;
}

std::size_t phases_capacity(std::size_t count) noexcept {
  // 7 int64 fields (at most 20 characters), a worker, an error name, 9 commas.
  return kPhasesHeader.size() + count * (8 * 21 + 12 + 24);
}

std::size_t format_phases(const ConnTimes* times, std::size_t count, char* buf) noexcept {
  char* out = put_text(buf, kPhasesHeader);
  for (std::size_t i = 0; i < count; ++i) {
    const ConnTimes& t = times[i];
    const Phases p = phases_of(t);
    out = put_field(out, static_cast<std::int64_t>(i));
    for (const std::int64_t v : {p.accept, p.loop, p.spawn, p.start_delay, p.transfer, p.total})
      out = put_field(out, v);
    out = put_field(out, t.accept_start != 0 ? t.accept_start : kEmpty);
    out = put_field(out, t.worker);
    out = put_text(out, conn_error_name(p.error));
    *out++ = '\n';
  }
  return static_cast<std::size_t>(out - buf);
}

std::string format_records(const ConnRecord* records, std::size_t count) {
  std::string text(kRecordsHeader);
  char line[8 * 24 + 32];
  for (std::size_t i = 0; i < count; ++i) {
    const ConnRecord& r = records[i];
    char* out = line;
    out = put_field(out, static_cast<std::int64_t>(i));
    out = put_field(out, r.process);
    out = put_field(out, r.connector);
    out = put_field(out, r.connect_start);
    out = put_field(out, r.connect_ns);
    out = put_field(out, r.response_ns);
    out = put_field(out, r.total_ns);
    out = put_text(out, conn_error_name(static_cast<ConnError>(r.error)));
    *out++ = ',';
    *out++ = r.connect_ns > kSlowConnectNs ? '1' : '0';
    *out++ = '\n';
    text.append(line, static_cast<std::size_t>(out - line));
  }
  return text;
}

}  // namespace ipclab::burst
