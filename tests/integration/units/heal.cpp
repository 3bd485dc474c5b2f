// A build unit of the integration tests: see tests/integration/meson.build.
#include "../credentials/test_heal_matrix.cpp"
#include "../credentials/heal_rows_s3.cpp"
#include "../credentials/heal_rows_services.cpp"
#include "../credentials/test_heal_matrix_coverage.cpp"
#include "../s3/test_hostile_replies.cpp"
#include "../service/test_warm_up.cpp"
