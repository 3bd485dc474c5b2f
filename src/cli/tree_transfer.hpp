#pragma once
// Many objects: cp --recursive, sync and mv --recursive. The source tree is
// walked (and for sync the destination with it, both in name order, each
// once); what is to be copied starts at once, up to --concurrency at a
// time, while the walk goes on.

#include "context.hpp"

#include <boost/asio/awaitable.hpp>

namespace floe::cli {

enum class tree_verb {
  cp,    // everything under SRC
  sync,  // what DST lacks or has older or of another size; --delete
  mv,    // cp, each source removed once its copy is done
};

/// SRC and DST are x.cl.args[0] and [1]: a local directory and an S3
/// prefix either way, or two prefixes. A prefix is taken as a folder
/// ("s3://b/logs" is the keys under "logs/").
boost::asio::awaitable<int> transfer_tree(context& x, tree_verb verb);

}  // namespace floe::cli
