#pragma once
// Everything public in floe, in one include.

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/result.hpp>
#include <floe/errors/kind.hpp>
