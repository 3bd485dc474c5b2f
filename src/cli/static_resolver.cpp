// Linked into the fully static floe only (meson -Dstatic_cli=true,
// scripts/build-static).
//
// A statically linked glibc still reads /etc/nsswitch.conf, and for any
// service there other than its built-in `files` and `dns` it would dlopen a
// libnss_*.so (systemd-resolved, mDNS, LDAP, ...) built for the host's shared
// glibc: a module a static program cannot load safely, and one a bare
// container does not have. So host names are looked up in /etc/hosts, then
// through DNS (/etc/resolv.conf), whatever nsswitch.conf says: the same on
// every host.

#include <nss.h>

namespace {

struct hosts_from_files_and_dns {
  hosts_from_files_and_dns() noexcept { (void)__nss_configure_lookup("hosts", "files dns"); }
};

hosts_from_files_and_dns const configure_hosts_lookup;

}  // namespace
