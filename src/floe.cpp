// libfloe: the one translation unit that compiles floe's implementation.
#include <floe/src.hpp>
