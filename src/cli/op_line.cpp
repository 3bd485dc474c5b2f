// What a transfer prints, and the type an upload is given.

#include "transfer.hpp"

#include "mime_type.hpp"
#include "output.hpp"
#include "s3_uri.hpp"
#include "shown_path.hpp"

namespace floe::cli {

void print_op_line(context& x, std::string_view word, std::string_view from, std::string_view to) {
  if (x.cl.quiet || x.cl.only_show_errors || x.g.json) return;
  std::string line = x.cl.dryrun ? "(dryrun) " : "";
  line += word;
  line += ": ";
  line += printable(from);
  if (!to.empty()) {  // "delete: s3://b/k" names one
    line += " to ";
    line += printable(to);
  }
  line += '\n';
  write_stdout(line);
}

std::string shown_endpoint(std::string_view path_or_uri) {
  if (is_s3_uri(path_or_uri)) return std::string(path_or_uri);
  return shown_path(path_or_uri);
}

std::string upload_content_type(context const& x, std::string_view name) {
  if (!x.cl.content_type.empty()) return x.cl.content_type;
  if (x.cl.no_guess_mime_type) return {};
  return std::string(guess_content_type(name));
}

}  // namespace floe::cli
