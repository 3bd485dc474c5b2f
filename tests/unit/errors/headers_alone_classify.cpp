// Each public header of the area compiles on its own.
#include <floe/errors/classify.hpp>
