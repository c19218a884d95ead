// The ipclab benchmark service for Apache Thrift (PROTOCOL.md section 10), used with both the
// binary and the compact protocol. Generated at build time by `thrift`; nothing generated is
// committed.
namespace cpp ipclab_thrift
namespace java dev.ipclab.rpc.thrift
namespace py ipclab_thrift

struct Small {
  1: i32 n1,
  2: i32 n2,
  3: string s1,
  4: bool b1,
  5: list<i32> li1,
}

struct Medium {
  1: i32 n1,
  2: i32 n2,
  3: i32 n3,
  4: i32 n4,
  5: string s1,
  6: string s2,
  7: bool b1,
  8: bool b2,
  9: double d1,
  10: double d2,
  11: list<i32> li1,
  12: list<string> ls1,
}

struct Large {
  1: i32 n1,
  2: i32 n2,
  3: i32 n3,
  4: i32 n4,
  5: i32 n5,
  6: i32 n6,
  7: i32 n7,
  8: i32 n8,
  9: i32 n9,
  10: i32 n10,
  11: string s1,
  12: string s2,
  13: string s3,
  14: string s4,
  15: string s5,
  16: string s6,
  17: string s7,
  18: string s8,
  19: bool b1,
  20: bool b2,
  21: bool b3,
  22: bool b4,
  23: bool b5,
  24: double d1,
  25: double d2,
  26: double d3,
  27: double d4,
  28: double d5,
  29: list<i32> li1,
  30: list<i32> li2,
  31: list<string> ls1,
  32: list<string> ls2,
  33: list<double> ld1,
  34: list<double> ld2,
}

service Bench {
  // seq is a u64 on the wire of other frameworks; Thrift has only signed i64 (same bits).
  binary call(1: i64 seq, 2: i32 wanted, 3: binary request),
  Small echoSmall(1: Small value),
  Medium echoMedium(1: Medium value),
  Large echoLarge(1: Large value),
  i64 finish(),
  // The void operations (PROTOCOL.md 10.1, --void): two-way calls with Thrift's void reply, not
  // `oneway` (which would not wait for the server).
  void put(1: i64 seq, 2: binary request),
  void putSmall(1: Small value),
  void putMedium(1: Medium value),
  void putLarge(1: Large value),
}
