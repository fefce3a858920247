//! The columns the built-in media publish, gathered for the results reference (each is
//! declared beside the code that publishes it).

use tcplab_core::ColumnDef;

/// The links-table columns the built-in media publish from `summary`: a link
/// direction's (a half-duplex cable's too) and its queue discipline's, and an 802.11
/// cell's channels'.
pub fn summary_columns() -> impl Iterator<Item = ColumnDef> {
    crate::link_columns::summary::ALL
        .into_iter()
        .chain(crate::qdisc_columns::summary::ALL)
        .chain(crate::wlan::columns::summary::ALL)
}

/// The `link_series` columns the built-in media publish from `sample`, likewise.
pub fn series_columns() -> impl Iterator<Item = ColumnDef> {
    crate::link_columns::series::ALL
        .into_iter()
        .chain(crate::qdisc_columns::series::ALL)
        .chain(crate::wlan::columns::series::ALL)
}
