#include "services/foxglove/channels.hpp"

namespace limbic::foxglove {

ChannelTable::Offer ChannelTable::Ensure(const std::string& topic, const std::string& encoding,
                                         const std::string& schema_name, const std::string& schema_encoding,
                                         const std::function<std::string()>& schema) {
  Offer offer;
  auto it = by_topic_.find(topic);
  if (it != by_topic_.end()) {
    const Channel& existing = by_id_.at(it->second);
    if (existing.schema_name == schema_name && existing.encoding == encoding) {
      offer.id = existing.id;
      return offer;
    }
    // Same topic, another type: the old channel goes, a new one (new id) comes.
    offer.replaced = existing.id;
    by_id_.erase(existing.id);
    by_topic_.erase(it);
  }
  if (by_id_.size() >= max_channels_) {
    ++refused_;
    return offer;
  }
  Channel c{next_id_++, topic, encoding, schema_name, schema(), schema_encoding};
  const uint32_t id = c.id;
  by_topic_[topic] = id;
  auto [pos, inserted] = by_id_.emplace(id, std::move(c));
  offer.id = id;
  offer.added = &pos->second;
  return offer;
}

const Channel* ChannelTable::Find(uint32_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &it->second;
}

std::vector<Channel> ChannelTable::All() const {
  std::vector<Channel> all;
  all.reserve(by_id_.size());
  for (const auto& [id, c] : by_id_) all.push_back(c);
  return all;
}

std::vector<std::string> ClientSession::Apply(const SubscribeRequest& r, const ChannelTable& table) {
  std::vector<std::string> errors;
  for (const auto& s : r.subscriptions) {
    if (!table.Find(s.channel_id)) {
      errors.push_back("subscribe: no channel " + std::to_string(s.channel_id));
    } else if (channel_of_.count(s.id)) {
      errors.push_back("subscribe: subscription id " + std::to_string(s.id) + " is in use");
    } else if (subscription_of_.count(s.channel_id)) {
      errors.push_back("subscribe: channel " + std::to_string(s.channel_id) + " is already subscribed (subscription " +
                       std::to_string(subscription_of_.at(s.channel_id)) + ")");
    } else {
      channel_of_[s.id] = s.channel_id;
      subscription_of_[s.channel_id] = s.id;
    }
  }
  return errors;
}

std::vector<std::string> ClientSession::Apply(const UnsubscribeRequest& r) {
  std::vector<std::string> errors;
  for (uint32_t id : r.subscription_ids) {
    auto it = channel_of_.find(id);
    if (it == channel_of_.end()) {
      errors.push_back("unsubscribe: no subscription " + std::to_string(id));
      continue;
    }
    subscription_of_.erase(it->second);
    channel_of_.erase(it);
  }
  return errors;
}

std::vector<std::string> ClientSession::Apply(const ClientAdvertiseRequest& r,
                                              const std::function<std::string(const ClientChannel&)>& accept) {
  std::vector<std::string> errors;
  for (const auto& c : r.channels) {
    if (published_.count(c.id)) {
      errors.push_back("advertise: client channel " + std::to_string(c.id) + " is already advertised");
      continue;
    }
    const std::string why = accept(c);
    if (!why.empty()) {
      errors.push_back("advertise: channel " + std::to_string(c.id) + " on '" + c.topic + "' refused: " + why);
      continue;
    }
    published_[c.id] = c;
  }
  return errors;
}

std::vector<std::string> ClientSession::Apply(const ClientUnadvertiseRequest& r) {
  std::vector<std::string> errors;
  for (uint32_t id : r.channel_ids) {
    if (!published_.erase(id)) errors.push_back("unadvertise: no client channel " + std::to_string(id));
  }
  return errors;
}

std::optional<uint32_t> ClientSession::SubscriptionFor(uint32_t channel_id) const {
  auto it = subscription_of_.find(channel_id);
  if (it == subscription_of_.end()) return std::nullopt;
  return it->second;
}

void ClientSession::ChannelRemoved(uint32_t channel_id) {
  auto it = subscription_of_.find(channel_id);
  if (it == subscription_of_.end()) return;
  channel_of_.erase(it->second);
  subscription_of_.erase(it);
}

const ClientChannel* ClientSession::Published(uint32_t client_channel_id) const {
  auto it = published_.find(client_channel_id);
  return it == published_.end() ? nullptr : &it->second;
}

SendBudget::Verdict SendBudget::Check(size_t buffered, size_t frame_bytes, double now_s) {
  const double high = options_.high_water * static_cast<double>(options_.max_buffered_bytes);
  if (static_cast<double>(buffered) > high) {
    if (!over_since_s_) over_since_s_ = now_s;
    if (now_s - *over_since_s_ >= options_.stall_timeout_s) return Verdict::kDisconnect;
  } else {
    over_since_s_.reset();
  }
  if (buffered + frame_bytes > options_.max_buffered_bytes) {
    ++skipped_;
    return Verdict::kSkip;
  }
  return Verdict::kSend;
}

}  // namespace limbic::foxglove
