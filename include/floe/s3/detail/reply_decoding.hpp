#pragma once
// What floe reads from a successful S3 reply beyond its XML body (which
// s3/replies.hpp parses), pure: an http::response in, result values or an
// error out. No Asio, no sockets. Error replies are read by
// errors::describe_reply in the request driver.

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/http/message.hpp>
#include <floe/s3/detail/download_check.hpp>
#include <floe/s3/detail/operation.hpp>
#include <floe/s3/params.hpp>
#include <floe/s3/replies.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace floe::s3::detail {

// Object facts from a HEAD/GET reply's headers: ETag (normalised), type,
// dates, version, Content-Range, the whole object's size and the user
// metadata (names lower-cased, without x-amz-meta-).
FLOE_DECL void fill_info(http::response const& res, object_info& i);

// A PutObject's ETag and version.
FLOE_DECL put_result put_result_from(http::response const& res);

// A HEAD or in-memory GET's result, the body moved out of the reply.
FLOE_DECL get_result reply_result(http::response& res);

// A ranged request answered with anything but 206 and a Content-Range
// starting where it was asked (a server or cache that ignored Range sends
// the whole object with 200): its bytes are never delivered or spliced.
FLOE_DECL bool range_ignored(http::response const& rs, std::uint64_t start);
FLOE_DECL error range_error(op_spec const& op, http::response const& rs, std::uint64_t start);

// A 2xx reply to an in-memory GetObject that is not the object or range
// asked for: a 206 to a request without Range (a piece passed off as the
// whole), or, with `ranged`, a reply range_ignored refuses; and the error
// that says so.
FLOE_DECL bool memory_get_wrong(http::response const& rs, bool ranged, std::uint64_t start);
FLOE_DECL error memory_get_error(op_spec const& op, http::response const& rs, bool ranged, std::uint64_t start);

// What a reply head says of its body, as download_check reads it.
FLOE_DECL reply_facts_of_body body_facts(http::response const& rs);

// A streamed GetObject whose reply download_check refused (`why`): nothing
// of that reply was delivered, and the download fails.
FLOE_DECL error download_refused(op_spec const& op, http::response const& rs, std::string why);

// The last failure of a download that was resumed `resumes` times, over
// `attempts` requests in all: it says both.
// A GET whose bytes do not match the checksum its reply gave
// (errc::checksum_mismatch, `why` from body_verifier::mismatch);
// `tried_again`: it was the second GET from the start.
FLOE_DECL error checksum_failed(op_spec const& op, http::response const& rs, std::string why, bool tried_again);

FLOE_DECL void after_resumes(error& e, unsigned attempts, unsigned resumes);

// An UploadPart reply without an ETag (part `number`): completing with it
// would fail on the store, or worse, be accepted.
FLOE_DECL error missing_part_etag(op_spec const& op, http::response const& res, std::size_t number);

// The result of a completed multipart upload of `parts`: the ETag of its
// reply body, else of its header (Ceph 16.2 answers <ETag></ETag>), else the
// one S3 and Ceph compute from the parts' MD5s.
FLOE_DECL put_result completed_upload(complete_result& done, http::response const& res,
                                      std::span<completed_part const> parts);

// A copy that made `copied_etag` on a store that ignores copy-source
// conditions: which of p's conditions excludes that version ("" when none
// does). A multipart ETag may be recomputed by the copy: it is not compared.
FLOE_DECL std::string copy_condition_broken(copy_params const& p, std::string_view copied_etag);

// Adds a quiet DeleteObjects reply for `batch` to `all`: the keys it names
// failed, the rest of the batch was deleted.
FLOE_DECL void merge_delete_batch(delete_objects_result& all, std::vector<std::string>& batch,
                                  delete_objects_result& reply);

// Ends `all` with the failure of a batch after earlier ones ran: the keys
// of that batch, of those never sent (keys[i...]) and the XML-unsafe
// `singles` are not done.
FLOE_DECL void stop_deleting(delete_objects_result& all, error failure, std::vector<std::string>& batch,
                             std::vector<std::string>& keys, std::size_t i, std::vector<std::string>& singles);

}  // namespace floe::s3::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/detail/impl/reply_decoding.ipp>
#endif
