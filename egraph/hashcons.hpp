// HashCons: the e-graph's table from e-node content to e-node id. Open
// addressing with linear probing over 8-byte slots, each an id and the high
// 32 bits of its content's hash, so a probe compares hashes in the table
// and reads an e-node's record only when they agree. A hit (most adds of a
// saturating run) is a few loads and compares; abseil's flat_hash_set, used
// before, spent about 60 instructions a probe on its group matching and
// bookkeeping. The table never sees content: callers pass the hash and an
// equality test on ids. It is never iterated, so its layout cannot leak
// into ids or output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace eqsat::egraph {

class HashCons {
 public:
  // The id `find` returns when the content is absent (no e-node has it).
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  // Starts with `min_slots` rounded up to a power of two: a saturating run's
  // table would otherwise rehash its ids again and again on the way up.
  explicit HashCons(std::size_t min_slots = 4096) {
    std::size_t n = 16;
    while (n < min_slots) n *= 2;
    resize(n);
  }

  std::size_t size() const { return size_; }
  std::size_t bytes() const { return slots_.capacity() * sizeof(Slot); }

  // The stored id under `hash` for which `same(id)` holds, else kNone.
  template <class Same>
  std::uint32_t find(std::size_t hash, Same same) const {
    const std::uint32_t tag = tag_of(hash);
    for (std::size_t i = tag & mask_;; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if (s.id == kNone) return kNone;
      if (s.tag == tag && same(s.id)) return s.id;
    }
  }

  // As `find`; on a miss stores `id` under `hash` and returns kNone.
  template <class Same>
  std::uint32_t find_or_insert(std::size_t hash, std::uint32_t id, Same same) {
    const std::uint32_t tag = tag_of(hash);
    std::size_t i = tag & mask_;
    for (;; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if (s.id == kNone) break;
      if (s.tag == tag && same(s.id)) return s.id;
    }
    if (size_ >= limit_) [[unlikely]] {
      resize(2 * (mask_ + 1));
      i = free_slot(tag);
    }
    slots_[i] = Slot{id, tag};
    ++size_;
    return kNone;
  }

  // Removes `id`, stored under `hash`; false when it is not there. The
  // entries after it move back (no tombstones: probes stay short however
  // many e-nodes a rebuild re-keys).
  bool erase(std::size_t hash, std::uint32_t id) {
    std::size_t i = tag_of(hash) & mask_;
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].id == kNone) return false;
      if (slots_[i].id == id) break;
    }
    for (std::size_t j = (i + 1) & mask_; slots_[j].id != kNone; j = (j + 1) & mask_) {
      // The entry at j may fill the hole at i unless its home slot lies
      // after i on the way to j.
      const std::size_t home = slots_[j].tag & mask_;
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Slot{};
    --size_;
    return true;
  }

 private:
  struct Slot {
    std::uint32_t id = kNone;
    std::uint32_t tag = 0;
  };
  // The slot index is the tag's low bits, so growing and erasing need only
  // the table (never the e-nodes' content).
  static std::uint32_t tag_of(std::size_t hash) { return static_cast<std::uint32_t>(hash >> 32); }
  std::size_t free_slot(std::uint32_t tag) const {
    std::size_t i = tag & mask_;
    while (slots_[i].id != kNone) i = (i + 1) & mask_;
    return i;
  }
  // At most 3/4 full: linear probing's probes grow fast beyond.
  [[gnu::noinline]] void resize(std::size_t n) {
    std::vector<Slot> old(n);
    old.swap(slots_);
    mask_ = n - 1;
    limit_ = n / 4 * 3;
    for (const Slot& s : old)
      if (s.id != kNone) slots_[free_slot(s.tag)] = s;
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
  std::size_t limit_ = 0;
};

}  // namespace eqsat::egraph
