// A build unit of the CLI: see src/cli/meson.build.
#include "../verbs/stat.cpp"
#include "../verbs/put.cpp"
#include "../verbs/presign.cpp"
#include "../verbs/bucket.cpp"
#include "../verbs/whoami.cpp"
