// Server-side copies (CopyObject).

#include "transfer.hpp"

#include "json_writer.hpp"
#include "op_trace.hpp"
#include "output.hpp"
#include "s3_uri.hpp"

namespace floe::cli {

boost::asio::awaitable<int> copy_one(context& x, std::string const& sb, std::string const& sk, std::string const& db,
                                     std::string const& dk, copy_source const* src, transfer_record* rec) {
  s3::copy_params p;
  p.source_bucket = sb;
  p.source_key = sk;
  p.bucket = db;
  p.key = dk;
  // What is given replaces the source's (x-amz-metadata-directive:
  // REPLACE); the rest is kept (s3::copy_params). No type is guessed: the
  // source has its own.
  if (!x.cl.content_type.empty()) p.content_type = x.cl.content_type;
  if (!x.cl.metadata.empty()) p.metadata = x.cl.metadata;
  p.write = x.cl.write;
  if (src != nullptr) {
    p.source_if_match = src->etag;
    p.source_size = src->size;
  }
  op_trace trace(x, "CopyObject", "PUT", db, std::string_view(dk));
  auto r = co_await x.c.async_copy_object(p);
  trace.done(r);
  if (!r) co_return fail(x, r.error(), "CopyObject", resource_of(db, dk));
  if (rec != nullptr) {
    rec->ok = true;
    rec->etag = r->etag;
  } else if (x.g.json) {
    json_writer w;
    w.begin_object().field("source", uri_of(sb, sk)).field("uri", uri_of(db, dk)).field("etag", r->etag).end_object();
    write_stdout(w.line());
  } else {
    print_op_line(x, "copy", uri_of(sb, sk), uri_of(db, dk));
  }
  co_return exit_ok;
}

}  // namespace floe::cli
