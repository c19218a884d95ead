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
