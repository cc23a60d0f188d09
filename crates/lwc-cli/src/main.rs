#![allow(dead_code)]
mod input;
mod objective;
mod output;
mod query;
mod table;
mod units;
fn main() {}
