#pragma once
// Build configuration shared by every floe header.
//
// floe compiles its heavy non-template code once, in libfloe (src/lib/), or
// in one file of a program that includes <floe/src.hpp>. A program that would rather not link libfloe can
// define FLOE_HEADER_ONLY before including any floe header: every header then
// pulls in its own impl/*.ipp and the definitions become inline.

#if defined(FLOE_HEADER_ONLY)
#define FLOE_DECL inline
#else
#define FLOE_DECL
#endif

// Defined while libfloe's units (or src.hpp) compile the implementation files.
#if defined(FLOE_SOURCE) && defined(FLOE_HEADER_ONLY)
#error "FLOE_SOURCE and FLOE_HEADER_ONLY exclude each other"
#endif
