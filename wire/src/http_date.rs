//! An HTTP date (`Retry-After: Wed, 21 Oct 2015 07:28:00 GMT`) as a moment,
//! by hand: the one form servers send now (RFC 9110's IMF-fixdate).

/// Milliseconds since the Unix epoch, or `None` for anything but an IMF-fixdate.
pub(crate) fn unix_ms(value: &str) -> Option<u64> {
    let (_weekday, rest) = value.trim().split_once(", ")?;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, "GMT"] = parts[..] else { return None };
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let month = MONTHS.iter().position(|m| *m == month)? as i64 + 1;
    let number = |s: &str, len: usize| {
        (s.len() == len && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse::<i64>().ok()).flatten()
    };
    let (day, year) = (number(day, 2)?, number(year, 4)?);
    let hms: Vec<i64> = time.split(':').map(|t| number(t, 2)).collect::<Option<_>>()?;
    let [h, m, s] = hms[..] else { return None };
    if !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    let seconds = days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + s;
    u64::try_from(seconds).ok()?.checked_mul(1000)
}

/// Days since 1970-01-01 of a date in the proleptic Gregorian calendar
/// (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_date_servers_send() {
        // 1445412480 s: `date -u -d '2015-10-21 07:28:00' +%s`.
        assert_eq!(unix_ms("Wed, 21 Oct 2015 07:28:00 GMT"), Some(1_445_412_480_000));
        assert_eq!(unix_ms("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        // 951782400 s: a leap day, `date -u -d 2000-02-29 +%s`.
        assert_eq!(unix_ms(" Tue, 29 Feb 2000 00:00:00 GMT "), Some(951_782_400_000));
        for bad in [
            "120",
            "Wed, 21 Oct 2015 07:28:00 PST",
            "Wednesday, 21-Oct-15 07:28:00 GMT",
            "Wed, 32 Oct 2015 07:28:00 GMT",
            "",
        ] {
            assert_eq!(unix_ms(bad), None, "{bad}");
        }
    }
}
