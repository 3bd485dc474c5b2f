#include <floe/xml/error_body.hpp>
