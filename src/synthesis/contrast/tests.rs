//! The tension rule measured on labelled pairs (`tests/cases/synthesis/tensions.json`).
//!
//! `cargo test --lib --all-features synthesis::contrast -- --nocapture` prints precision and
//! recall for a range of thresholds and at the chosen [`MIN_CLOSENESS`].

use serde::Deserialize;

use super::*;
use crate::annotations::colors::category_of;
use crate::annotations::{AnnotationType, ColorCategory};

#[derive(Deserialize)]
struct Side {
    color: String,
    prefix: Option<String>,
    comment: Option<String>,
    text: Option<String>,
}

#[derive(Deserialize)]
struct Pair {
    a: Side,
    b: Side,
    tension: bool,
    why: String,
}

fn annotation(side: &Side) -> Annotation {
    Annotation {
        kind: AnnotationType::Highlight,
        color: side.color.clone(),
        color_hex: None,
        color_category: category_of(&side.color),
        text: side.text.clone(),
        comment: side.comment.clone(),
        comment_prefix: side.prefix.clone(),
        theme: None,
        page: None,
        page_label: None,
        heading_level: None,
        image_path: None,
        zotero_link: None,
    }
}

fn pairs() -> Vec<Pair> {
    serde_json::from_str(include_str!("../../../tests/cases/synthesis/tensions.json")).expect("tensions.json")
}

/// A pair as the rule sees it: (Dice closeness, shared words) when opposed, the label, why.
type Scored = (Option<(f64, usize)>, bool, String);

/// Every labelled pair, scored.
fn scored() -> Vec<Scored> {
    pairs()
        .iter()
        .map(|p| {
            let (a, b) = (annotation(&p.a), annotation(&p.b));
            assert_eq!(a.color_category, ColorCategory::Semantic);
            let (ga, gb) = (Group::of(&a), Group::of(&b));
            let score = opposed((&ga, &a), (&gb, &b)).map(|_| {
                let (shared, dice) = closeness(&terms_of(&a), &terms_of(&b));
                (dice, shared.len())
            });
            (score, p.tension, p.why.clone())
        })
        .collect()
}

/// (precision, recall) of the rule at `threshold` with at least `min_shared` shared words.
fn measure(threshold: f64, min_shared: usize) -> (f64, f64) {
    let (mut tp, mut fp, mut fn_) = (0.0, 0.0, 0.0);
    for (score, label, _) in scored() {
        let said = score.is_some_and(|(dice, n)| n >= min_shared && dice >= threshold);
        match (said, label) {
            (true, true) => tp += 1.0,
            (true, false) => fp += 1.0,
            (false, true) => fn_ += 1.0,
            _ => {}
        }
    }
    let precision = if tp + fp == 0.0 { 1.0 } else { tp / (tp + fp) };
    (precision, tp / (tp + fn_))
}

#[test]
fn the_chosen_threshold_is_measured_on_labelled_pairs() {
    let pairs = scored();
    assert!(pairs.len() >= 30, "at least 30 labelled pairs");
    for (score, label, why) in &pairs {
        println!("{label:5} {score:?} {why}");
    }
    for min_shared in 1..=4 {
        for step in 0..=8 {
            let t = 0.05 * f64::from(step);
            let (p, r) = measure(t, min_shared);
            println!("shared >= {min_shared}, closeness >= {t:.2}: precision {p:.2} recall {r:.2}");
        }
    }
    let (precision, recall) = measure(MIN_CLOSENESS, MIN_TENSION_TERMS);
    println!(
        "chosen: shared >= {MIN_TENSION_TERMS}, closeness >= {MIN_CLOSENESS}: precision {precision:.2} recall {recall:.2}"
    );
    assert!(precision >= 0.9, "precision {precision:.2}");
    assert!(recall >= 0.7, "recall {recall:.2}");
}

#[test]
fn polarity_comes_from_colour_then_prefix_and_negation_splits_claims() {
    let mut claim = annotation(&Side {
        color: "detail".into(),
        prefix: Some("CLAIM:".into()),
        comment: None,
        text: None,
    });
    assert_eq!(polarity(&Group::Detail, &claim), 1);
    claim.comment_prefix = Some("WEAKNESS:".into());
    assert_eq!(polarity(&Group::Detail, &claim), -1);
    claim.comment_prefix = Some("TERM:".into());
    assert_eq!(polarity(&Group::Detail, &claim), 0);
    claim.text = Some("It doesn't hold".into());
    assert!(negated(&claim));
}

#[test]
fn words_that_say_nothing_of_a_topic_do_not_make_two_claims_close() {
    // Both sides share only "becomes", "possible" and a word about sampling, on unrelated topics:
    // a faster detector readout against a physics simulation's limit.
    let side =
        |text: &str| Side { color: "positive".into(), prefix: None, comment: None, text: Some(text.into()) };
    let a = annotation(&side(
        "Readout at full rate becomes possible: sample the pulse width instead of its charge",
    ));
    let b =
        annotation(&side("When the phase becomes complex, cheap sampling of lattice states is not possible"));
    let (ga, gb) = (Group::of(&a), Group::of(&b));
    assert!(opposed((&ga, &a), (&gb, &b)).is_some(), "one side is negated");
    let (shared, dice) = closeness(&terms_of(&a), &terms_of(&b));
    assert!(shared.len() < MIN_TENSION_TERMS || dice < MIN_CLOSENESS, "{shared:?} {dice:.2}");
}
