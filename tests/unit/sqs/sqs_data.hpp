#pragma once
// Loads the SQS test data (tests/data/sqs/, see its README.md): moto
// captures and the AWS-documented error replies, and compares JSON
// documents by value.
#include <doctest/doctest.h>

#include <simdjson.h>

#include "test_data.hpp"

#include <cctype>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sqs_test {

inline std::string data_dir() { return floe_test::env_or_fail("FLOE_TEST_DATA") + "/sqs/"; }

using floe_test::slurp;

struct reply {
  unsigned status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string header(std::string const& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// A moto capture: the request sent and the reply as received.
struct capture {
  std::string operation;
  std::string target;
  std::string request_body;
  reply r;
};

inline capture moto(std::string const& name) {
  auto const text = slurp(data_dir() + "moto/" + name + ".json");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE_MESSAGE(parser.parse(text).get(doc) == simdjson::SUCCESS, name, ": not JSON");
  capture c;
  std::string_view v;
  REQUIRE(doc["operation"].get(v) == simdjson::SUCCESS);
  c.operation = v;
  REQUIRE(doc["request"]["target"].get(v) == simdjson::SUCCESS);
  c.target = v;
  REQUIRE(doc["request"]["body"].get(v) == simdjson::SUCCESS);
  c.request_body = v;
  std::uint64_t status = 0;
  REQUIRE(doc["reply"]["status"].get(status) == simdjson::SUCCESS);
  c.r.status = static_cast<unsigned>(status);
  REQUIRE(doc["reply"]["body"].get(v) == simdjson::SUCCESS);
  c.r.body = v;
  simdjson::dom::array headers;
  REQUIRE(doc["reply"]["headers"].get(headers) == simdjson::SUCCESS);
  for (auto h : headers) {
    std::string_view k, val;
    REQUIRE(h.at(0).get(k) == simdjson::SUCCESS);
    REQUIRE(h.at(1).get(val) == simdjson::SUCCESS);
    c.r.headers[lower(std::string(k))] = std::string(val);
  }
  return c;
}

/// A raw reply: status line and headers end with CRLF, a blank line, the body.
inline reply raw_http(std::string const& raw, std::string const& what) {
  reply r;
  auto const head_end = raw.find("\r\n\r\n");
  REQUIRE_MESSAGE(head_end != std::string::npos, what, ": no blank line after the head");
  r.body = raw.substr(head_end + 4);
  std::string_view head(raw.data(), head_end);
  auto eol = head.find("\r\n");
  auto const status_line = head.substr(0, eol);
  REQUIRE(status_line.starts_with("HTTP/1.1 "));
  r.status = static_cast<unsigned>(std::stoul(std::string(status_line.substr(9, 3))));
  while (eol != std::string_view::npos) {
    head.remove_prefix(eol + 2);
    eol = head.find("\r\n");
    auto const line = head.substr(0, eol);
    auto const colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    r.headers[lower(std::string(line.substr(0, colon)))] = std::string(value);
  }
  return r;
}

inline reply aws(std::string const& name) { return raw_http(slurp(data_dir() + "aws/" + name + ".http"), name); }

/// Whether two JSON values are equal (objects compared as sets of members).
inline bool same_json(simdjson::dom::element a, simdjson::dom::element b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case simdjson::dom::element_type::OBJECT: {
      auto const oa = a.get_object().value();
      auto const ob = b.get_object().value();
      if (oa.size() != ob.size()) return false;
      for (auto [k, v] : oa) {
        simdjson::dom::element other;
        if (ob.at_key(k).get(other) != simdjson::SUCCESS || !same_json(v, other)) return false;
      }
      return true;
    }
    case simdjson::dom::element_type::ARRAY: {
      auto const aa = a.get_array().value();
      auto const ab = b.get_array().value();
      if (aa.size() != ab.size()) return false;
      for (std::size_t i = 0; i < aa.size(); ++i) {
        if (!same_json(aa.at(i).value(), ab.at(i).value())) return false;
      }
      return true;
    }
    case simdjson::dom::element_type::STRING: return a.get_string().value() == b.get_string().value();
    case simdjson::dom::element_type::INT64: return a.get_int64().value() == b.get_int64().value();
    case simdjson::dom::element_type::UINT64: return a.get_uint64().value() == b.get_uint64().value();
    case simdjson::dom::element_type::DOUBLE: return a.get_double().value() == b.get_double().value();
    case simdjson::dom::element_type::BOOL: return a.get_bool().value() == b.get_bool().value();
    case simdjson::dom::element_type::NULL_VALUE: return true;
  }
  return false;
}

inline bool same_json(std::string const& a, std::string const& b) {
  simdjson::dom::parser pa, pb;
  simdjson::dom::element ea, eb;
  if (pa.parse(a).get(ea) != simdjson::SUCCESS) return false;
  if (pb.parse(b).get(eb) != simdjson::SUCCESS) return false;
  return same_json(ea, eb);
}

}  // namespace sqs_test
