// Classifies Ceph RGW's answer to a lost conditional write with floe's
// compiled library (not its header-only form): proof that the program
// compiled against floe's headers and linked libfloe.
#include <floe/errors/reply_error.hpp>

#include <cstdio>

int main() {
  floe::errors::reply_facts facts;
  facts.status = 409;
  facts.method = "PUT";
  facts.is_conditional_write = true;
  facts.if_match = true;
  auto r = floe::errors::describe_reply(
      facts, "<Error><Code>ConcurrentModification</Code><Message></Message></Error>", {.operation = "PutObject"});
  bool const conflict = r.what.outcome == floe::errors::kind::conflict;
  std::printf("%s\n", conflict ? "conflict" : "misclassified");
  return conflict ? 0 : 1;
}
