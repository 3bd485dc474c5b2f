#include <floe/errors/reply_error.hpp>
