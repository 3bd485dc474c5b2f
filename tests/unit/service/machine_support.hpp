#pragma once
// What the request machine's tests share (test_request_machine.cpp,
// test_deadline.cpp): a reply of one kind.
#include <floe/service/request_machine.hpp>

namespace service_test {

inline floe::service::reply_facts reply(floe::errors::kind k) {
  floe::service::reply_facts f;
  f.kind = k;
  return f;
}

}  // namespace service_test
