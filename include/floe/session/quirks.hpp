#pragma once
// What floe has learned about stores, per endpoint, that changes how a
// request is sent: how a conditional write must carry its ETag (a Ceph RGW
// that refuses a quoted If-Match), whether DeleteObject honours If-Match,
// and whether an upload's checksum may go in an aws-chunked trailer. Held
// by a session and shared by the clients made from it, so what one client
// learns another does not probe again; never global.

#include <floe/config.hpp>

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace floe {

/// Thread-safe: clients on several executors may share one.
class store_quirks {
 public:
  /// "unquoted If-Match on writes" is in force for this endpoint.
  FLOE_DECL bool unquoted_if_match(std::string const& endpoint) const;
  FLOE_DECL void set_unquoted_if_match(std::string const& endpoint, bool on);
  /// Whether the endpoint honours If-Match on DeleteObject (nullopt: not
  /// probed yet). Ceph RGW 16.2 ignores it and deletes unconditionally.
  FLOE_DECL std::optional<bool> honours_delete_if_match(std::string const& endpoint) const;
  FLOE_DECL void set_honours_delete_if_match(std::string const& endpoint, bool on);
  /// Whether the endpoint refused an upload in the aws-chunked trailer form
  /// (STREAMING-UNSIGNED-PAYLOAD-TRAILER: Swift's 501, Ceph RGW 16.2's
  /// 400): its uploads then carry their checksum in a header.
  FLOE_DECL bool refuses_trailer(std::string const& endpoint) const;
  FLOE_DECL void set_refuses_trailer(std::string const& endpoint);
  /// Whether the endpoint refused a CompleteMultipartUpload whose parts
  /// carry their checksums (<ChecksumCRC64NVME>: Swift 2.30 answers 400
  /// MalformedXML): its completions then carry none.
  FLOE_DECL bool refuses_complete_checksums(std::string const& endpoint) const;
  FLOE_DECL void set_refuses_complete_checksums(std::string const& endpoint);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, bool, std::less<>> unquoted_;
  std::map<std::string, bool, std::less<>> delete_if_match_;
  std::map<std::string, bool, std::less<>> no_trailer_;
  std::map<std::string, bool, std::less<>> no_complete_checksums_;
};

}  // namespace floe

#if defined(FLOE_HEADER_ONLY)
#include <floe/session/impl/quirks.ipp>
#endif
