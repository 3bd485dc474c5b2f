// The -v line of one operation.

#include "op_trace.hpp"

#include "output.hpp"
#include "s3_uri.hpp"

#include <floe/s3/addressing.hpp>

namespace floe::cli {

op_trace::op_trace(context& x, std::string_view operation, std::string_view method, std::string_view bucket,
                   std::optional<std::string_view> key)
    : x_(x), start_(std::chrono::steady_clock::now()) {
  if (!x.g.debug) return;
  line_ = std::string(operation) + " " + std::string(method) + " ";
  auto tgt = bucket.empty() ? s3::resolve_service_target(x.c.addressing()) : s3::resolve_target(x.c.addressing(), bucket, key);
  if (tgt) line_ += tgt->scheme + "://" + tgt->host_header + tgt->path;
  else line_ += resource_of(bucket, key.value_or(std::string_view{}));
}

void op_trace::finish(error const* e) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_).count();
  std::string s = line_ + " -> ";
  if (e == nullptr || !e->code) {
    s += "ok";
  } else {
    auto const& d = e->diag;
    if (d.http_status != 0) s += std::to_string(d.http_status) + " ";
    s += d.code.empty() ? kind_name(*e) : d.code;
    if (!d.request_id.empty()) s += " request-id " + d.request_id;
    if (d.attempt > 1) s += " attempt " + std::to_string(d.attempt);
    if (d.http_status == 0 && !d.message.empty()) s += " (" + d.message + ")";
  }
  s += " " + std::to_string(ms) + " ms";
  debug_line(x_.g, s);
}

}  // namespace floe::cli
