// "Did you mean": the subcommand closest to a mistyped one
// (`eqsat optimise` suggests `optimize`), by edit distance.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::tools {

// The name among `names` closest to `typed` by edit distance (a swap of
// neighbours counts one; ties: the first), when it is close enough to be a
// plausible typo: at most a third of the longer length, and at least one,
// apart. A name `typed`
// starts (`opt` for `optimize`) is suggested too.
std::optional<std::string> closest_command(std::string_view typed,
                                           const std::vector<std::string>& names);

}  // namespace eqsat::tools
