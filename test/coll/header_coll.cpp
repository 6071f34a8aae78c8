// test/coll/header_coll.cpp: ghz/coll/coll.h from C++ (see header_coll.c).
#include "header_coll.c"
