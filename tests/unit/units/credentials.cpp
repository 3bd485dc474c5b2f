// A build unit of the unit tests: see tests/unit/meson.build.
#include "../credentials/test_value.cpp"
#include "../credentials/test_environment.cpp"
#include "../credentials/test_ini.cpp"
#include "../credentials/test_profiles.cpp"
#include "../credentials/test_shared_files.cpp"
#include "../credentials/test_provider.cpp"
#include "../credentials/test_chain_pure.cpp"
#include "../credentials/test_sso.cpp"
