/*
 * floe's stand-in for the xmlversion.h shipped in libxml2's source, which
 * describes upstream's default configuration (iconv, zlib, HTTP, ...).
 * This build's own definitions are generated from xmlversion.h.in by
 * include/libxml/meson.build into the build tree, under another name, so
 * that no include path order can pick the shipped ones instead.
 */
#ifndef FLOE_LIBXML2_XMLVERSION_H
#define FLOE_LIBXML2_XMLVERSION_H
#include <libxml/xmlversion_config.h>
#endif
