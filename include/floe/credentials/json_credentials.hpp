#pragma once
// The JSON credential documents three sources return, parsed: a
// credential_process's stdout, a container credentials endpoint's reply and
// the instance metadata service's reply. Pure: bytes in, a value out.
//
// Fields (case-sensitive, as the services write them):
//   AccessKeyId, SecretAccessKey       required, non-empty
//   SessionToken | Token               the process uses SessionToken; the
//                                      container and IMDS use Token
//   Expiration                         ISO 8601; optional (none: long-term)
//   Version                            process only: must be the number 1
//   Code                               IMDS only: anything but "Success" fails
// Messages name the source and the field, never a value.

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/result.hpp>

#include <string_view>

namespace floe::credentials {

enum class json_credentials_kind {
  process,    // Version 1, SessionToken
  container,  // Token
  imds,       // Token, Code
};

/// Parses one document. `what` names the source in messages ("credential_process
/// of profile dev"). At most 64 KiB. Errors: errc::malformed_reply (not
/// JSON, not an object, a missing or empty field, a field of the wrong
/// type, an unreadable Expiration, a Version other than 1, an IMDS Code
/// other than "Success"); errc::reply_too_large. The set's `source` is
/// left empty for the caller.
FLOE_DECL result<credentials> parse_json_credentials(std::string_view text, json_credentials_kind kind,
                                                     std::string_view what);

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/credentials/impl/json_credentials.ipp>
#endif
