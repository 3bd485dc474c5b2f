// Server-side copies (CopyObject).

#include "transfer.hpp"

#include "json_writer.hpp"
#include "op_trace.hpp"
#include "output.hpp"
#include "s3_uri.hpp"

namespace floe::cli {

boost::asio::awaitable<int> copy_one(context& x, std::string const& sb, std::string const& sk, std::string const& db,
                                     std::string const& dk, transfer_record* rec) {
  bool const quiet = rec != nullptr;
  s3::copy_params p;
  p.source_bucket = sb;
  p.source_key = sk;
  p.bucket = db;
  p.key = dk;
  op_trace trace(x, "CopyObject", "PUT", db, std::string_view(dk));
  auto r = co_await x.c.async_copy_object(p);
  trace.done(r);
  if (!r) co_return fail(x, r.error(), "CopyObject", resource_of(db, dk));
  if (rec != nullptr) {
    rec->ok = true;
    rec->etag = r->etag;
  }
  if (x.g.json) {
    if (rec == nullptr) {
      json_writer w;
      w.begin_object().field("source", uri_of(sb, sk)).field("uri", uri_of(db, dk)).field("etag", r->etag).end_object();
      write_stdout(w.line());
    }
  } else if (quiet) {
    write_stdout("copy: " + printable(uri_of(sb, sk)) + " to " + printable(uri_of(db, dk)) + "\n");
  } else {
    write_stdout(r->etag + "\n");
  }
  co_return exit_ok;
}

}  // namespace floe::cli
