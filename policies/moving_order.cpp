#include "policies/moving_order.h"

#include <algorithm>
#include <cmath>

namespace dlsim {

namespace {

// The margin, relative to the magnitudes a key is computed from: 2^-40, thousands of times the
// rounding of the few operations a key takes (2^-53 each), so that a key computed at any time
// is within it of the straight line through its last exact value.
constexpr double kMargin = 0x1p-40;
// More jobs to insert than this (or than an eighth of the members): sort them all again.
constexpr std::size_t kInsertOneByOneUpTo = 64;

double err_of(double value, const KeyMotion& m, double dt) {
  return kMargin * (std::abs(value) + std::abs(m.per_s) * dt + m.scale);
}

} // namespace

std::uint32_t MovingOrder::new_slot(JobId j, std::uint32_t devices) {
  std::uint32_t s = 0;
  if (free_slots_.empty()) {
    s = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    s = free_slots_.back();
    free_slots_.pop_back();
  }
  slots_[s] = Slot{};
  slots_[s].job = j;
  slots_[s].devices = devices;
  if (slot_of_.size() <= j) slot_of_.resize(static_cast<std::size_t>(j) + 1, kNoSlot);
  slot_of_[j] = s;
  return s;
}

void MovingOrder::add(JobId j, std::uint32_t devices) {
  pending_.push_back(new_slot(j, devices));
}

void MovingOrder::remove(JobId j) {
  if (j >= slot_of_.size() || slot_of_[j] == kNoSlot) return;
  const std::uint32_t s = slot_of_[j];
  slot_of_[j] = kNoSlot;
  Slot& slot = slots_[s];
  switch (slot.state) {
  case State::kPending:
    // Compacted when half of pending_ is dropped: amortized O(1) a removal, and the dropped
    // slots kept at most as many as the live ones.
    slot.state = State::kDropped;
    if (++dropped_ * 2 > pending_.size()) drop_removed_pending();
    return;
  case State::kDropped: // not reachable: slot_of_ no longer names a dropped slot
    return;
  case State::kHeld:
    leaving_.push_back(s);
    break;
  case State::kMoved: // in leaving_ already
  case State::kLeaving:
    break;
  }
  slot.state = State::kLeaving;
}

void MovingOrder::changed(JobId j) {
  if (j >= slot_of_.size() || slot_of_[j] == kNoSlot) return;
  const std::uint32_t s = slot_of_[j];
  if (slots_[s].state != State::kHeld) return; // keyed anew at its insertion anyway
  slots_[s].state = State::kMoved;
  leaving_.push_back(s);
}

const PassKey& MovingOrder::exact(Slot& s) {
  if (s.at != now_) {
    s.key = exact_(s.job);
    s.at = now_;
  }
  return s.key;
}

bool MovingOrder::key_below(JobId h, const PassKey& w) {
  Slot& s = slots_[slot_of_[h]];
  if (s.at == now_) return s.key < w;
  const KeyMotion& m = s.motion;
  if (!std::isnan(m.per_s)) {
    const double dt = to_seconds(now_ - s.at);
    const double v0 = std::get<0>(s.key);
    const double v = v0 + m.per_s * dt;
    // Both the key computed now and the last one are within err_of of the line through them.
    const double err = 2 * err_of(v0, m, dt);
    if (v - err > m.floor) {
      if (v + err < std::get<0>(w)) return true;
      if (v - err > std::get<0>(w)) return false;
    }
  }
  return exact(s) < w;
}

SimTime MovingOrder::certificate(std::size_t i) const {
  const Slot& a = slots_[slot_[i]];
  const Slot& b = slots_[slot_[i + 1]];
  const KeyMotion& ma = a.motion;
  const KeyMotion& mb = b.motion;
  if (ma.same_inputs_means_same_key && mb.same_inputs_means_same_key && ma.inputs == mb.inputs)
    return kForever; // equal keys at any time: the order by id holds
  if (std::isnan(ma.per_s) || std::isnan(mb.per_s)) return now_;
  const double va = std::get<0>(a.key);
  const double vb = std::get<0>(b.key);
  // The gap b - a less both margins, now and its change per second (the margins grow with the
  // values' moves).
  const double gap = (vb - va) - err_of(va, ma, 0) - err_of(vb, mb, 0);
  if (!(gap > 0)) return now_;
  const double closing =
      (ma.per_s - mb.per_s) + kMargin * (std::abs(ma.per_s) + std::abs(mb.per_s));
  double seconds = closing > 0 ? gap / closing / 2 : std::numeric_limits<double>::infinity();
  // A falling key must stay clear of its floor, where it stops falling.
  auto clear_of_floor = [&](double v, const KeyMotion& m) {
    if (m.per_s >= 0 || std::isinf(m.floor)) return true;
    const double room = v - m.floor - err_of(v, m, 0);
    if (!(room > 0)) return false;
    seconds = std::min(seconds, room / -m.per_s / 2);
    return true;
  };
  if (!clear_of_floor(va, ma) || !clear_of_floor(vb, mb)) return now_;
  if (!(seconds < 1e12)) return kForever;
  return now_ + static_cast<SimTime>(seconds * 1e6);
}

void MovingOrder::set_certificate(std::size_t i) {
  if (i + 1 >= held_.size()) return;
  exact_at(i);
  exact_at(i + 1);
  cert_[i] = certificate(i);
  next_due_ = std::min(next_due_, cert_[i]);
}

void MovingOrder::erase_at(std::size_t i) {
  const auto at = static_cast<std::ptrdiff_t>(i);
  held_.erase(held_.begin() + at);
  slot_.erase(slot_.begin() + at);
  dev_.erase(dev_.begin() + at);
  cert_.erase(cert_.begin() + at);
  first_changed_ = std::min(first_changed_, i);
}

// The leaving and moved members out of held_ (the moved ones to be inserted again); the pairs
// they leave behind are suspects.
void MovingOrder::take_out_leaving() {
  if (leaving_.empty()) return;
  if (leaving_.size() <= 4) {
    // From the last place to the first, so that the places found stay right.
    std::vector<std::size_t>& at = scratch_;
    at.clear();
    for (std::uint32_t s : leaving_)
      at.push_back(static_cast<std::size_t>(std::find(held_.begin(), held_.end(), slots_[s].job) -
                                            held_.begin()));
    std::sort(at.begin(), at.end(), std::greater<>());
    for (std::size_t i : at)
      erase_at(i);
    for (std::size_t k = 0; k < at.size(); ++k) {
      // Left of at[k], less the members taken out before it.
      const std::size_t before = at.size() - 1 - k;
      if (at[k] > before) suspect(at[k] - 1 - before);
    }
  } else {
    std::size_t w = 0;
    for (std::size_t i = 0; i < held_.size(); ++i) {
      if (slots_[slot_[i]].state != State::kHeld) {
        if (w > 0) suspect(w - 1);
        first_changed_ = std::min(first_changed_, w);
        continue;
      }
      held_[w] = held_[i];
      slot_[w] = slot_[i];
      dev_[w] = dev_[i];
      cert_[w] = cert_[i];
      ++w;
    }
    held_.resize(w);
    slot_.resize(w);
    dev_.resize(w);
    cert_.resize(w);
  }
  for (std::uint32_t s : leaving_) {
    if (slots_[s].state == State::kMoved) {
      slots_[s].state = State::kPending;
      slots_[s].at = kNotKeyed;
      pending_.push_back(s);
    } else {
      free_slots_.push_back(s);
    }
  }
  leaving_.clear();
}

void MovingOrder::suspect(std::size_t i) {
  cert_[i] = kRecheck;
  suspects_.push_back(i);
}

// The member at `from` goes back to `to` < from; the pairs between keep their certificates.
void MovingOrder::move_back(std::size_t from, std::size_t to) {
  const auto f = static_cast<std::ptrdiff_t>(from);
  const auto t = static_cast<std::ptrdiff_t>(to);
  std::rotate(held_.begin() + t, held_.begin() + f, held_.begin() + f + 1);
  std::rotate(slot_.begin() + t, slot_.begin() + f, slot_.begin() + f + 1);
  std::rotate(dev_.begin() + t, dev_.begin() + f, dev_.begin() + f + 1);
  // Pairs (to..from-2, +1) become (to+1..from-1, +1).
  std::copy_backward(cert_.begin() + t, cert_.begin() + f - 1, cert_.begin() + f);
  first_changed_ = std::min(first_changed_, to);
}

// The pair (i, i + 1), due, compared by exact keys; a member found before its left neighbour
// goes back to its place in the sorted part before it (insertion sort), and the pair it leaves
// behind is due next.
void MovingOrder::check_pair(std::size_t i) {
  if (exact_at(i) < exact_at(i + 1)) {
    set_certificate(i);
    return;
  }
  const PassKey& x = exact_at(i + 1);
  std::size_t p = i;
  while (p > 0 && x < exact_at(p - 1))
    --p;
  move_back(i + 1, p);
  set_certificate(p);
  if (p > 0) set_certificate(p - 1);
  if (i + 2 < held_.size()) cert_[i + 1] = kRecheck;
}

// Left to right, every pair that is due is compared: the part left of it is sorted. When no
// certificate ran out, only the suspects (and the pairs their moves make) are due.
void MovingOrder::fix_order() {
  const std::size_t n = held_.size();
  if (now_ >= next_due_) {
    next_due_ = kForever;
    for (std::size_t i = 0; i + 1 < n; ++i) {
      if (cert_[i] > now_)
        next_due_ = std::min(next_due_, cert_[i]);
      else
        check_pair(i);
    }
  } else {
    std::sort(suspects_.begin(), suspects_.end());
    for (std::size_t i : suspects_) {
      for (; i + 1 < n && cert_[i] <= now_; ++i)
        check_pair(i);
    }
  }
  suspects_.clear();
}

void MovingOrder::insert_one(std::uint32_t s) {
  Slot& slot = slots_[s];
  slot.state = State::kHeld;
  slot.motion = motion_(slot.job);
  slot.at = kNotKeyed;
  const PassKey key = exact(slot);
  const auto it =
      std::partition_point(held_.begin(), held_.end(), [&](JobId h) { return key_below(h, key); });
  const auto at = it - held_.begin();
  const auto i = static_cast<std::size_t>(at);
  held_.insert(it, slot.job);
  slot_.insert(slot_.begin() + at, s);
  dev_.insert(dev_.begin() + at, slot.devices);
  cert_.insert(cert_.begin() + at, kForever);
  set_certificate(i);
  if (i > 0) set_certificate(i - 1);
  first_changed_ = std::min(first_changed_, i);
}

// The slots removed while pending leave pending_ (in its order) and become free.
void MovingOrder::drop_removed_pending() {
  if (dropped_ == 0) return;
  std::erase_if(pending_, [&](std::uint32_t s) {
    if (slots_[s].state != State::kDropped) return false;
    free_slots_.push_back(s);
    return true;
  });
  dropped_ = 0;
}

void MovingOrder::insert_pending() {
  if (pending_.empty()) return;
  if (pending_.size() > kInsertOneByOneUpTo || pending_.size() * 8 > held_.size()) {
    rebuild();
    return;
  }
  for (std::uint32_t s : pending_)
    insert_one(s);
  pending_.clear();
}

// Every member and pending job keyed anew and sorted (with their motions taken anew too when
// every member changed).
void MovingOrder::rebuild() {
  if (rebuild_) {
    for (std::uint32_t s : slot_)
      slots_[s].state = State::kPending;
  }
  pending_.insert(pending_.end(), slot_.begin(), slot_.end());
  for (std::uint32_t s : pending_) {
    Slot& slot = slots_[s];
    if (slot.state != State::kHeld) {
      slot.motion = motion_(slot.job);
      slot.at = kNotKeyed;
      slot.state = State::kHeld;
    }
    exact(slot);
  }
  std::sort(pending_.begin(), pending_.end(),
            [&](std::uint32_t a, std::uint32_t b) { return slots_[a].key < slots_[b].key; });
  slot_.swap(pending_);
  pending_.clear();
  held_.resize(slot_.size());
  dev_.resize(slot_.size());
  cert_.assign(slot_.size(), kForever);
  next_due_ = kForever;
  for (std::size_t i = 0; i < slot_.size(); ++i) {
    held_[i] = slots_[slot_[i]].job;
    dev_[i] = slots_[slot_[i]].devices;
  }
  for (std::size_t i = 0; i + 1 < slot_.size(); ++i)
    set_certificate(i);
  first_changed_ = 0;
  rebuild_ = false;
  suspects_.clear();
}

void MovingOrder::sum_devices() {
  prefix_.resize(held_.size() + 1);
  prefix_[0] = 0;
  for (std::size_t i = first_changed_; i < held_.size(); ++i)
    prefix_[i + 1] = prefix_[i] + dev_[i];
  first_changed_ = held_.size();
}

void MovingOrder::refresh(SimTime now, ExactKey exact, MotionOf motion) {
  now_ = now;
  exact_ = std::move(exact);
  motion_ = std::move(motion);
  drop_removed_pending();
  if (rebuild_) {
    // The moved members stay: all are keyed anew.
    std::erase_if(leaving_, [&](std::uint32_t s) {
      if (slots_[s].state != State::kMoved) return false;
      slots_[s].state = State::kHeld;
      return true;
    });
  }
  take_out_leaving();
  if (rebuild_) {
    rebuild();
  } else {
    fix_order();
    insert_pending();
  }
  sum_devices();
}

} // namespace dlsim
