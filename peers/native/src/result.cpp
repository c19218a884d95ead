#include "result.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace ipclab {

std::string runtime_string() {
#if defined(__clang__)
  return std::string("clang++ ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "c++ unknown";
#endif
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char esc[8];
          std::snprintf(esc, sizeof esc, "\\u%04x", c);
          out += esc;
        } else {
          out += ch;  // UTF-8 passes through unchanged
        }
    }
  }
  out += '"';
  return out;
}

namespace {

void write_fully(int fd, const std::string& data, const std::string& what) {
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_io("write " + what);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

// {"kind": count, ...}
std::string counts_json(const std::vector<std::pair<std::string, std::uint64_t>>& counts) {
  std::string j = "{";
  const char* sep = "";
  for (const auto& [kind, count] : counts) {
    j += sep + json_string(kind) + ": " + std::to_string(count);
    sep = ", ";
  }
  return j + "}";
}

std::string load_json(const LoadReport& l) {
  std::string j = ", \"clients\": " + std::to_string(l.clients);
  j += ", \"rate\": " + std::to_string(l.rate);
  j += ", \"arrival\": " + json_string(l.arrival);
  j += ", \"duration_ms\": " + std::to_string(l.duration_ms);
  j += ", \"warmup_ms\": " + std::to_string(l.warmup_ms);
  j += ", \"requests_ok\": " + std::to_string(l.ok);
  j += ", \"requests_failed\": " + std::to_string(l.failed);
  j += ", \"errors\": " + counts_json(l.errors);
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.1f", l.achieved_per_s);
  j += ", \"achieved_per_s\": " + std::string(rate);
  j += ", \"lateness_p99_ns\": " + std::to_string(l.lateness_p99_ns);
  if (l.release_late_ns) j += ", \"release_late_ns\": " + std::to_string(*l.release_late_ns);
  return j;
}

}  // namespace

std::string ready_line(const std::string& endpoint, const std::string& mechanism, long pid,
                       const std::string& extra) {
  return "READY {\"endpoint\": " + json_string(endpoint) + ", \"mechanism\": " +
         json_string(mechanism) + ", \"language\": " + json_string(kLanguage) +
         ", \"runtime\": " + json_string(runtime_string()) + ", \"pid\": " + std::to_string(pid) +
         ", \"contract\": " + std::to_string(kContract) + extra + "}\n";
}

void announce_ready(const std::string& endpoint, const std::string& mechanism,
                    const std::string& extra) {
  write_fully(STDOUT_FILENO,
              ready_line(endpoint, mechanism, static_cast<long>(::getpid()), extra), "stdout");
}

std::string result_json(const ClientResult& r) {
  const bool ok = !r.error_kind.has_value();
  std::string j = "{";
  j += "\"schema\": \"ipclab.peer-result/1\"";
  j += ", \"status\": " + json_string(ok ? "ok" : "error");
  j += ", \"error_kind\": " + (ok ? std::string("null") : json_string(kind_name(*r.error_kind)));
  j += ", \"error\": " + (ok ? std::string("null") : json_string(r.error));
  j += ", \"language\": " + json_string(kLanguage);
  j += ", \"runtime\": " + json_string(runtime_string());
  j += ", \"mechanism\": " + json_string(r.mechanism);
  j += ", \"pattern\": " + json_string(r.pattern);
  j += ", \"request_size\": " + std::to_string(r.request_size);
  j += ", \"response_size\": " + std::to_string(r.response_size);
  j += ", \"warmup\": " + std::to_string(r.warmup);
  j += ", \"iterations\": " + std::to_string(r.iterations);
  j += ", \"payload\": " + json_string(r.payload);
  j += ", \"sequence_length\": " +
       (r.sequence_length ? std::to_string(*r.sequence_length) : std::string("null"));
  j += ", \"samples\": " + std::to_string(r.samples);
  j += ", \"clock\": " + json_string(kClockName);
  j += ", \"pid\": " + std::to_string(r.pid);
  j += ", \"contract\": " + std::to_string(kContract);
  j += ", \"warmup_samples\": " + std::to_string(r.warmup_samples);
  if (r.stream) {
    const StreamReport& s = *r.stream;
    const auto cpu = [](const CpuFigures& c) {
      return "{\"user_ns\": " + std::to_string(c.user_ns) + ", \"sys_ns\": " +
             std::to_string(c.sys_ns) + ", \"voluntary\": " + std::to_string(c.voluntary) +
             ", \"involuntary\": " + std::to_string(c.involuntary) + "}";
    };
    j += ", \"messages\": " + std::to_string(s.messages);
    j += ", \"message_size\": " + std::to_string(s.message_size);
    j += ", \"windows\": " + std::to_string(s.windows);
    j += ", \"stream_ns\": " + std::to_string(s.stream_ns);
    j += ", \"lost\": " + std::to_string(s.lost);
    j += ", \"client_cpu\": " + cpu(s.client_cpu);
    j += ", \"server_cpu\": " + cpu(s.server_cpu);
  }
  if (r.burst) {
    const BurstReport& b = *r.burst;
    j += ", \"connections\": " + std::to_string(b.connections);
    j += ", \"connectors\": " + std::to_string(b.connectors);
    j += ", \"processes\": " + std::to_string(b.processes);
    j += ", \"connections_ok\": " + std::to_string(b.ok);
    j += ", \"connections_failed\": " + std::to_string(b.failed);
    j += ", \"errors\": " + counts_json(b.errors);
    j += ", \"slow_connects\": " + std::to_string(b.slow_connects);
    j += ", \"burst_ns\": " + std::to_string(b.burst_ns);
    j += ", \"release_ns\": " + std::to_string(b.release_ns);
    if (b.release_late_ns) j += ", \"release_late_ns\": " + std::to_string(*b.release_late_ns);
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.1f", b.burst_ns ? b.ok * 1e9 / b.burst_ns : 0.0);
    j += ", \"conns_per_s\": " + std::string(rate);
  }
  if (r.load) j += load_json(*r.load);
  j += "}\n";
  return j;
}

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_io("open " + tmp);
  try {
    write_fully(fd, content, tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw_io_errno("close " + tmp, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw_io_errno("rename " + tmp + " to " + path, err);
  }
}

// ---- SamplesWriter --------------------------------------------------------------------------

namespace {
constexpr std::size_t kMaxChunk = 1 << 20;  // 8 MiB of samples before a write
}

SamplesWriter::~SamplesWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void SamplesWriter::open(const std::string& path, std::uint64_t expected) {
  path_ = path;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw_io("open " + path);
  chunk_ = expected < kMaxChunk ? static_cast<std::size_t>(expected) : kMaxChunk;
  if (chunk_ == 0) chunk_ = 1;
  buffer_.reserve(chunk_);
}

void SamplesWriter::flush() {
  if (buffer_.empty() || fd_ < 0) return;
  std::string bytes(buffer_.size() * 8, '\0');
  for (std::size_t i = 0; i < buffer_.size(); ++i) {
    const auto v = static_cast<std::uint64_t>(buffer_[i]);
    for (int b = 0; b < 8; ++b) bytes[i * 8 + b] = static_cast<char>(v >> (8 * b));
  }
  write_fully(fd_, bytes, path_);
  written_ += buffer_.size();
  buffer_.clear();
}

void SamplesWriter::close() {
  if (fd_ < 0) return;
  flush();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw_io("close " + path_);
}

}  // namespace ipclab
