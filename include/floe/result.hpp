#pragma once
// result<T>: a value or a floe::error. No exception unless the caller asks
// for one with value().

#include <floe/error.hpp>

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>
#include <boost/throw_exception.hpp>

namespace floe {

template <class T>
using result = boost::system::result<T, error>;

// Found by ADL from boost::system::result<T, error>::value().
[[noreturn]] inline void throw_exception_from_error(error const& e, boost::source_location const& loc) {
  boost::throw_exception(exception(e), loc);
}

}  // namespace floe
