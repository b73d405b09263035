//! The one rule for a change of mind that gives its reason: it cites another
//! seat, by the label the citing seat was shown or by its id. A seat citing
//! itself explains nothing. Review reactions and the claim ledger both use it.

/// A seat as a citation may name it: its id, and the label other seats see it by.
#[derive(Debug, Clone, Copy)]
pub struct SeatName<'a> {
    pub id: &'a str,
    pub label: &'a str,
}

/// The id of the seat `label` names, when it is a seat other than `own`.
pub(crate) fn cited_seat<'a>(seats: &[SeatName<'a>], own: &str, label: &str) -> Option<&'a str> {
    let label = label.trim();
    seats.iter().find(|s| s.label.eq_ignore_ascii_case(label) || s.id == label).filter(|s| s.id != own).map(|s| s.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_citation_names_another_seat_by_label_or_id_never_itself() {
        let seats = [SeatName { id: "ada", label: "Ada" }, SeatName { id: "bo", label: "Speaker 2" }];
        assert_eq!(cited_seat(&seats, "ada", " speaker 2 "), Some("bo"));
        assert_eq!(cited_seat(&seats, "ada", "bo"), Some("bo"));
        assert_eq!(cited_seat(&seats, "ada", "Ada"), None);
        assert_eq!(cited_seat(&seats, "ada", "Cy"), None);
    }
}
