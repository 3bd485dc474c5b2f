// Temporary files.

#include "temp_file.hpp"

#include "interrupt.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

namespace floe::cli {

temp_file::~temp_file() {
  if (fd >= 0) ::close(fd);
  if (!keep && !path.empty()) ::unlink(path.c_str());
  if (!path.empty()) forget_temp(path);
}

result<void> make_temp(temp_file& t, std::string const& near) {
  std::string tmpl = near + ".floe-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  int fd = ::mkstemp(buf.data());
  if (fd < 0) return error(errc::invalid_argument, "cannot create a temporary file " + tmpl + ": " + std::strerror(errno));
  t.fd = fd;
  t.path = buf.data();
  remember_temp(t.path);  // a second Ctrl-C removes it too
  return {};
}

}  // namespace floe::cli
