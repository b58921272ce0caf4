// Timestamps: the one grammar for the times training logs print, used both to find a line's
// timestamp and to compare two of them.
//
// Accepted: ISO 8601 and Python logging ("2024-05-01 12:00:00,123", "2024-05-01T12:00:00.5Z"),
// torchrun's summary ("2024-05-01_12:00:00"), a bare date ("2024-05-01"), syslog and journald
// ("Oct 16 02:07:00") and glog ("I0501 12:00:00.123456"), each optionally after spaces and one '['.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace denpex::core {

struct TimestampMatch {
  size_t begin = 0;  // byte span of the timestamp in the text given
  size_t end = 0;
  // Seconds within its year, comparable across the formats of one run (glog prints no year).
  // nullopt for a bare date.
  std::optional<double> seconds;
};

// The timestamp at the start of `text`; nullopt when there is none. Never fails otherwise.
std::optional<TimestampMatch> matchTimestamp(std::string_view text);

// The seconds of a timestamp as printed (see TimestampMatch::seconds); nullopt when `printed`
// does not start with a timestamp or names no time of day.
std::optional<double> timestampSeconds(std::string_view printed);

}  // namespace denpex::core
