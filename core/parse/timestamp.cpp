// The timestamp grammar (see timestamp.h).
#include "core/parse/timestamp.h"

#include <algorithm>

#include "core/base/text.h"

namespace denpex::core {
namespace {

using text::digitsAt;
using text::fixedInt;

constexpr int kDaysBefore[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};

// "HH:MM:SS" at s[at...]; true when it is there.
bool clockAt(std::string_view s, size_t at) {
  return digitsAt(s, at, 2) && at + 8 <= s.size() && s[at + 2] == ':' && digitsAt(s, at + 3, 2) && s[at + 5] == ':' &&
         digitsAt(s, at + 6, 2);
}

// Reads "HH:MM:SS" at `at` and an optional fraction after it; returns where the fraction ends.
size_t readClock(std::string_view s, size_t at, int month, int day, bool commaFraction, double& seconds) {
  seconds = (kDaysBefore[std::clamp(month, 1, 12) - 1] + day) * 86400.0 + fixedInt(s, at, 2) * 3600.0 +
            fixedInt(s, at + 3, 2) * 60.0 + fixedInt(s, at + 6, 2);
  size_t end = at + 8;
  if (end < s.size() && (s[end] == '.' || (commaFraction && s[end] == ','))) {
    size_t j = end + 1;
    double scale = 0.1;
    for (; j < s.size() && text::isDigit(s[j]); ++j, scale /= 10) seconds += (s[j] - '0') * scale;
    if (j > end + 1) end = j;
  }
  return end;
}

}  // namespace

std::optional<TimestampMatch> matchTimestamp(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  if (i < s.size() && s[i] == '[') ++i;
  TimestampMatch m;
  m.begin = i;
  // ISO 8601 / Python logging / torchrun: a date, then optionally a time of day.
  if (digitsAt(s, i, 4) && i + 10 <= s.size() && s[i + 4] == '-' && digitsAt(s, i + 5, 2) && s[i + 7] == '-' &&
      digitsAt(s, i + 8, 2)) {
    m.end = i + 10;
    size_t t = m.end + 1;
    if (m.end < s.size() && (s[m.end] == ' ' || s[m.end] == 'T' || s[m.end] == '_') && clockAt(s, t)) {
      double seconds = 0;
      m.end = readClock(s, t, fixedInt(s, i + 5, 2), fixedInt(s, i + 8, 2), true, seconds);
      if (m.end < s.size() && s[m.end] == 'Z') ++m.end;
      m.seconds = seconds;
    }
    return m;
  }
  // syslog and journald: "Oct 16 02:07:00" (no year).
  static constexpr std::string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
  if (i + 3 < s.size() && text::isAlpha(s[i]) && s[i + 3] == ' ') {
    size_t month = kMonths.find(s.substr(i, 3));
    size_t d = i + 4;
    if (d < s.size() && s[d] == ' ') ++d;  // "Oct  6"
    size_t digits = text::digitsAt(s, d, 2) ? 2 : text::digitsAt(s, d, 1) ? 1 : 0;
    if (month != std::string_view::npos && month % 3 == 0 && digits && d + digits < s.size() && s[d + digits] == ' ' &&
        clockAt(s, d + digits + 1)) {
      double seconds = 0;
      m.end = readClock(s, d + digits + 1, static_cast<int>(month / 3) + 1, fixedInt(s, d, digits), false, seconds);
      m.seconds = seconds;
      return m;
    }
  }
  // glog: "I0501 12:00:00.123456" (severity letter, month, day; no year).
  if (i < s.size() && (s[i] == 'I' || s[i] == 'W' || s[i] == 'E' || s[i] == 'F') && digitsAt(s, i + 1, 4) &&
      i + 6 < s.size() && s[i + 5] == ' ' && clockAt(s, i + 6)) {
    double seconds = 0;
    m.end = readClock(s, i + 6, fixedInt(s, i + 1, 2), fixedInt(s, i + 3, 2), false, seconds);
    m.seconds = seconds;
    return m;
  }
  return std::nullopt;
}

std::optional<double> timestampSeconds(std::string_view printed) {
  auto m = matchTimestamp(text::trim(printed));
  return m ? m->seconds : std::nullopt;
}

}  // namespace denpex::core
