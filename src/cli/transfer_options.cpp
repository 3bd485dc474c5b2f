// Options shared by cp, mv, sync and rm (and put: how objects are stored).

#include "transfer_options.hpp"

#include "s3_uri.hpp"

#include <algorithm>
#include <array>

namespace floe::cli {

namespace {

result<void> set_concurrency(command_line& cl, std::string_view value) {
  std::uint64_t n = 0;
  if (!parse_unsigned(value, n) || n < 1 || n > 64) return usage("--concurrency takes 1 to 64");
  cl.concurrency = static_cast<unsigned>(n);
  cl.concurrency_given = true;
  return {};
}

template <bool Include>
result<void> add_filter(command_line& cl, std::string_view value) {
  if (value.empty()) return usage(Include ? "--include takes a pattern" : "--exclude takes a pattern");
  cl.filters.push_back(filter_rule{Include, std::string(value)});
  return {};
}

// What `aws s3` accepts (its argument choices), and S3's OUTPOSTS and
// EXPRESS_ONEZONE, which it leaves to the API.
constexpr std::array<std::string_view, 10> storage_classes{
    "STANDARD", "REDUCED_REDUNDANCY", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING",
    "GLACIER",  "DEEP_ARCHIVE",       "GLACIER_IR",  "OUTPOSTS",   "EXPRESS_ONEZONE"};
constexpr std::array<std::string_view, 8> canned_acls{"private",        "public-read",       "public-read-write",
                                                      "authenticated-read", "aws-exec-read", "bucket-owner-read",
                                                      "bucket-owner-full-control", "log-delivery-write"};
constexpr std::array<std::string_view, 2> sse_kinds{"AES256", "aws:kms"};

template <std::size_t N>
result<void> one_of(std::string_view option, std::array<std::string_view, N> const& choices, std::string_view value,
                    std::string& out) {
  if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
    std::string m = "--" + std::string(option) + " takes one of ";
    for (std::size_t i = 0; i < N; ++i) m.append(i == 0 ? "" : ", ").append(choices[i]);
    m.append(", not \"").append(value).append("\"");
    return usage(std::move(m));
  }
  out = std::string(value);
  return {};
}

result<void> set_storage_class(command_line& cl, std::string_view v) {
  return one_of("storage-class", storage_classes, v, cl.write.storage_class);
}
result<void> set_sse(command_line& cl, std::string_view v) { return one_of("sse", sse_kinds, v, cl.write.sse); }
result<void> set_acl(command_line& cl, std::string_view v) { return one_of("acl", canned_acls, v, cl.write.acl); }

result<void> set_sse_kms_key_id(command_line& cl, std::string_view v) {
  if (v.empty()) return usage("--sse-kms-key-id takes a KMS key id or ARN");
  cl.write.sse_kms_key_id = std::string(v);
  return {};
}

result<void> set_checksum_algorithm(command_line& cl, std::string_view v) {
  auto a = checksum::parse_algorithm(v);
  if (!a) return usage("--checksum-algorithm takes CRC32, CRC32C, CRC64NVME, SHA1 or SHA256, not \"" + std::string(v) + "\"");
  cl.checksum_algorithm = *a;
  return {};
}

result<void> set_cache_control(command_line& cl, std::string_view v) {
  if (v.empty()) return usage("--cache-control takes a value, e.g. max-age=3600");
  cl.write.cache_control = std::string(v);
  return {};
}

}  // namespace

option_spec const concurrency_option{"concurrency", 0, "N", "objects in flight at once (1-64, default 8)",
                                     set_concurrency};
option_spec const exclude_option{
    "exclude", 0, "PATTERN",
    "leave out what matches PATTERN (* ? [..], '*' crosses '/'),\nmatched against the path below SRC (and below DST "
    "for what\nsync would delete); repeatable, with --include: the last\nmatch decides",
    add_filter<false>};
option_spec const include_option{"include", 0, "PATTERN",
                                 "take what matches PATTERN although an earlier --exclude\nleft it out",
                                 add_filter<true>};
option_spec const dryrun_option{"dryrun", 0, "", "print what would be done, \"(dryrun) upload: ...\"; write\nnothing",
                                set_flag<&command_line::dryrun>};
option_spec const quiet_option{"quiet", 0, "", "print nothing, not even errors: the exit code says",
                               set_flag<&command_line::quiet>};
option_spec const only_show_errors_option{"only-show-errors", 0, "", "print errors only, no operation lines",
                                          set_flag<&command_line::only_show_errors>};
option_spec const no_guess_mime_type_option{
    "no-guess-mime-type", 0, "",
    "do not guess uploads' Content-Type from the file name\n(S3 then stores binary/octet-stream)",
    set_flag<&command_line::no_guess_mime_type>};

option_spec const storage_class_option{
    "storage-class", 0, "CLASS",
    "store written objects in CLASS: STANDARD, REDUCED_REDUNDANCY,\nSTANDARD_IA, ONEZONE_IA, INTELLIGENT_TIERING, GLACIER,\n"
    "DEEP_ARCHIVE, GLACIER_IR, OUTPOSTS, EXPRESS_ONEZONE",
    set_storage_class};
option_spec const sse_option{"sse", 0, "AES256|aws:kms", "server-side encryption of written objects", set_sse};
option_spec const sse_kms_key_id_option{"sse-kms-key-id", 0, "KEY",
                                        "the KMS key of --sse aws:kms (else the account's\ndefault key)",
                                        set_sse_kms_key_id};
option_spec const acl_option{
    "acl", 0, "ACL",
    "canned ACL of written objects: private, public-read,\npublic-read-write, authenticated-read, aws-exec-read,\n"
    "bucket-owner-read, bucket-owner-full-control,\nlog-delivery-write",
    set_acl};
option_spec const cache_control_option{
    "cache-control", 0, "VALUE",
    "Cache-Control of written objects; on an S3-to-S3 copy it\nreplaces the source's metadata, as --content-type and\n"
    "--metadata do (what is not given is kept)",
    set_cache_control};

option_spec const checksum_algorithm_option{
    "checksum-algorithm", 0, "ALG",
    "the checksum uploads carry: CRC32, CRC32C, CRC64NVME (the\ndefault), SHA1, SHA256; sent even when\n"
    "request_checksum_calculation is when_required",
    set_checksum_algorithm};

result<void> check_write_options(command_line const& cl) {
  if (!cl.write.sse_kms_key_id.empty() && cl.write.sse != "aws:kms")
    return usage("--sse-kms-key-id \"" + cl.write.sse_kms_key_id + "\" goes only with --sse aws:kms" +
                 (cl.write.sse.empty() ? std::string() : ", not --sse " + cl.write.sse));
  return {};
}

namespace {

// The first option given that says how an object is written, "" if none.
std::string_view write_option_given(command_line const& cl) {
  if (!cl.content_type.empty()) return "--content-type";
  if (!cl.metadata.empty()) return "--metadata";
  if (cl.no_guess_mime_type) return "--no-guess-mime-type";
  if (!cl.write.storage_class.empty()) return "--storage-class";
  if (!cl.write.sse.empty()) return "--sse";
  if (!cl.write.sse_kms_key_id.empty()) return "--sse-kms-key-id";
  if (!cl.write.acl.empty()) return "--acl";
  if (!cl.write.cache_control.empty()) return "--cache-control";
  if (cl.checksum_algorithm) return "--checksum-algorithm";
  return {};
}

}  // namespace

result<void> check_output_and_filters(command_line const& cl, bool many) {
  if (auto w = check_write_options(cl); !w) return w;
  // A download writes a local file, which has no S3 type, metadata or
  // storage: such an option would be silently dropped.
  if (cl.args.size() == 2 && is_s3_uri(cl.args[0]) && !is_s3_uri(cl.args[1]))
    if (auto o = write_option_given(cl); !o.empty())
      return usage(std::string(o) + " applies to what is written to S3 (an upload or an S3-to-S3 copy), not to a "
                   "download");
  // One object is one request at a time: there are no objects to run at once.
  if (!many && cl.concurrency_given) return usage("--concurrency (objects at once) applies with --recursive");
  if (!many && !cl.filters.empty()) return usage("--exclude and --include apply with --recursive");
  if (cl.quiet && cl.only_show_errors) return usage("--quiet and --only-show-errors exclude each other");
  if (cl.g.json && (cl.quiet || cl.only_show_errors))
    return usage("--json prints one document: it takes neither --quiet nor --only-show-errors");
  return {};
}

}  // namespace floe::cli
