#pragma once
// The checksum an upload carries (issue 31): which algorithm, if any
// (upload_algorithm), the headers that carry it on PutObject, UploadPart,
// CreateMultipartUpload and CompleteMultipartUpload, the whole object's
// value from its parts', and the setting's resolution from the
// environment and the profile. Pure, but for hash_file, which reads a
// file's bytes on the execution context's blocking worker thread.
//
// The header form (x-amz-checksum-<alg> before the body) needs the value
// before the first byte goes out: a memory body is hashed where it lies, a
// file body of a single PUT (or a part of a multipart upload, where the
// store refuses the trailer form: detail/trailer_body.hpp) in a first pass
// over the bytes that are then sent. A file that changes between that pass
// and the send goes out with a value that no longer matches its bytes, and
// the store refuses it (400 BadDigest): a changed file is never stored
// under a stale checksum.

#include <floe/checksum/algorithm.hpp>
#include <floe/checksum/hasher.hpp>
#include <floe/config.hpp>
#include <floe/credentials/profile.hpp>
#include <floe/environment.hpp>
#include <floe/http/fields.hpp>
#include <floe/result.hpp>
#include <floe/s3/client_config.hpp>
#include <floe/s3/params.hpp>
#include <floe/s3/replies.hpp>

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace floe::s3::detail {

// The algorithm an upload carries: the call's when it names one (sent
// whatever the calculation setting, as the SDKs do), else the client's
// default unless the calculation (the call's, else the client's) is
// when_required; nullopt: no checksum.
FLOE_DECL std::optional<checksum::algorithm> upload_algorithm(put_params const& p, client_config const& c) noexcept;

// x-amz-checksum-<alg>: the value, and x-amz-sdk-checksum-algorithm: its
// name (PutObject, UploadPart).
FLOE_DECL void set_checksum_headers(http::fields& h, checksum::digest const& d);

// How a multipart upload's whole-object checksum is made: FULL_OBJECT for
// the CRCs (combined locally from the parts' values), COMPOSITE for SHA-1
// and SHA-256 (the checksum of the parts' digests).
constexpr checksum::checksum_type multipart_type(checksum::algorithm a) noexcept {
  return checksum::is_crc(a) ? checksum::checksum_type::full_object : checksum::checksum_type::composite;
}

// CreateMultipartUpload: x-amz-checksum-algorithm and x-amz-checksum-type.
FLOE_DECL void set_multipart_checksum(http::fields& h, checksum::algorithm a);

// The whole object's checksum from its parts' (each part's value and size,
// in number order): a FULL_OBJECT CRC, or the COMPOSITE "<base64>-N".
// invalid_argument when a part has no value or one of another algorithm.
struct whole_checksum {
  checksum::checksum_type type = checksum::checksum_type::full_object;
  std::string value;  // base64; "-N" appended when composite
};
FLOE_DECL result<whole_checksum> whole_object_checksum(checksum::algorithm a, std::span<completed_part const> parts,
                                                       std::span<std::uint64_t const> sizes);

// CompleteMultipartUpload: a FULL_OBJECT value goes in x-amz-checksum-<alg>
// with x-amz-checksum-type: FULL_OBJECT (the store checks it against the
// parts it holds); a composite one is not sent (its parts' values are in
// the body).
FLOE_DECL void set_complete_checksum(http::fields& h, checksum::algorithm a, whole_checksum const& w);

// "when_supported" or "when_required" in any case; otherwise nullopt.
FLOE_DECL std::optional<checksum_calculation> parse_checksum_calculation(std::string_view v) noexcept;

// The setting a client takes: the caller's, else
// AWS_REQUEST_CHECKSUM_CALCULATION, else the profile's
// request_checksum_calculation, else when_supported. invalid_argument
// naming the value and where it came from.
FLOE_DECL result<checksum_calculation> resolve_checksum_calculation(std::optional<checksum_calculation> caller,
                                                                   env_lookup const& env,
                                                                   credentials::profile const* prof);

// The checksum of bytes [offset, offset + length) of the file at `path`,
// read here (blocking). invalid_argument naming the file when it cannot be
// read whole.
FLOE_DECL result<checksum::digest> hash_file_now(std::string const& path, std::uint64_t offset, std::uint64_t length,
                                                checksum::algorithm a);

// hash_file_now on the executor's blocking worker (detail/blocking_worker.hpp):
// the executor keeps sending other requests (the other parts of a
// multipart upload) while the file is read and hashed, and the caller
// resumes on its executor.
FLOE_DECL boost::asio::awaitable<result<checksum::digest>> hash_file(std::string const& path, std::uint64_t offset,
                                                                     std::uint64_t length, checksum::algorithm a);

}  // namespace floe::s3::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/detail/impl/upload_checksum.ipp>
#endif
