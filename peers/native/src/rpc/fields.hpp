// The fields of the 10.2 records, for the X-macros each framework binding uses to convert its
// generated types from and to a Record: I(name, index) int, S string, B bool, D double, LI / LS /
// LD sequences of int / string / double; index is the field's place in its Record vector (fields of one kind
// come in order, so converting to a Record may simply append).
#pragma once

#define IPCLAB_SMALL_FIELDS(I, S, B, D, LI, LS, LD) I(n1, 0) I(n2, 1) S(s1, 0) B(b1, 0) LI(li1, 0)

#define IPCLAB_MEDIUM_FIELDS(I, S, B, D, LI, LS, LD)                                          \
  I(n1, 0) I(n2, 1) I(n3, 2) I(n4, 3) S(s1, 0) S(s2, 1) B(b1, 0) B(b2, 1) D(d1, 0) D(d2, 1)  \
  LI(li1, 0) LS(ls1, 0)

#define IPCLAB_LARGE_FIELDS(I, S, B, D, LI, LS, LD)                                            \
  I(n1, 0) I(n2, 1) I(n3, 2) I(n4, 3) I(n5, 4) I(n6, 5) I(n7, 6) I(n8, 7) I(n9, 8) I(n10, 9) \
  S(s1, 0) S(s2, 1) S(s3, 2) S(s4, 3) S(s5, 4) S(s6, 5) S(s7, 6) S(s8, 7)                     \
  B(b1, 0) B(b2, 1) B(b3, 2) B(b4, 3) B(b5, 4)                                                \
  D(d1, 0) D(d2, 1) D(d3, 2) D(d4, 3) D(d5, 4)                                                \
  LI(li1, 0) LI(li2, 1) LS(ls1, 0) LS(ls2, 1) LD(ld1, 0) LD(ld2, 1)

// Conversions between a Record and a framework's three generated types: IPCLAB_CONVERSIONS(NS, P)
// defines static to_message(const Record&, NS::T&) and from_message(const NS::T&) for T in
// Small, Medium, Large (inside a struct they are its static members). P names the field accessors
// P_TO_I … P_TO_LD (Record → message) and P_FROM_I … P_FROM_LD (message → Record), each taking
// (field, index) with the message as m and the Record as r; IPCLAB_PLAIN is the set for generated
// types that are plain structs of standard containers (Ice, Thrift).
#define IPCLAB_CONVERT(Type, FIELDS, P)                                                       \
  static void to_message(const ::ipclab::Record& r, Type& m) {                                \
    FIELDS(P##_TO_I, P##_TO_S, P##_TO_B, P##_TO_D, P##_TO_LI, P##_TO_LS, P##_TO_LD)           \
  }                                                                                           \
  static ::ipclab::Record from_message(const Type& m) {                                       \
    ::ipclab::Record r;                                                                       \
    FIELDS(P##_FROM_I, P##_FROM_S, P##_FROM_B, P##_FROM_D, P##_FROM_LI, P##_FROM_LS,          \
           P##_FROM_LD)                                                                       \
    return r;                                                                                 \
  }

#define IPCLAB_CONVERSIONS(NS, P)                   \
  IPCLAB_CONVERT(NS::Small, IPCLAB_SMALL_FIELDS, P)   \
  IPCLAB_CONVERT(NS::Medium, IPCLAB_MEDIUM_FIELDS, P) \
  IPCLAB_CONVERT(NS::Large, IPCLAB_LARGE_FIELDS, P)

#define IPCLAB_PLAIN_TO_I(f, i) m.f = r.n[i];
#define IPCLAB_PLAIN_TO_S(f, i) m.f = r.s[i];
#define IPCLAB_PLAIN_TO_B(f, i) m.f = r.b[i];
#define IPCLAB_PLAIN_TO_D(f, i) m.f = r.d[i];
#define IPCLAB_PLAIN_TO_LI(f, i) m.f = r.li[i];
#define IPCLAB_PLAIN_TO_LS(f, i) m.f = r.ls[i];
#define IPCLAB_PLAIN_TO_LD(f, i) m.f = r.ld[i];
#define IPCLAB_PLAIN_FROM_I(f, i) r.n.push_back(m.f);
#define IPCLAB_PLAIN_FROM_S(f, i) r.s.push_back(m.f);
#define IPCLAB_PLAIN_FROM_B(f, i) r.b.push_back(m.f);
#define IPCLAB_PLAIN_FROM_D(f, i) r.d.push_back(m.f);
#define IPCLAB_PLAIN_FROM_LI(f, i) r.li.push_back(m.f);
#define IPCLAB_PLAIN_FROM_LS(f, i) r.ls.push_back(m.f);
#define IPCLAB_PLAIN_FROM_LD(f, i) r.ld.push_back(m.f);
