//! `phi-ci release` against the real Docker engine: it fails if Docker does not answer, unless
//! `PHI_SKIP_DOCKER=1` says so explicitly.

use super::{answers_debug, answers_leak_drill, assert_no_canary_text, layer_line, phi_ci, text};

fn docker_skipped() -> bool {
    if std::env::var("PHI_SKIP_DOCKER").as_deref() == Ok("1") {
        eprintln!("PHI_SKIP_DOCKER=1: the release check against Docker is skipped");
        return true;
    }
    false
}

#[test]
fn release_check_passes_on_the_release_image_and_fails_on_the_leak_drill_image() {
    if docker_skipped() {
        return;
    }
    let out = phi_ci(&["release"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(layer_line(&stdout, 2).contains("stop clean"), "{stdout}");
    let e2e = layer_line(&stdout, 3);
    assert!(
        e2e.contains("PASS") && e2e.contains("markers proven 2/2"),
        "{e2e}"
    );
    assert_no_canary_text(&out);

    let drill = phi_ci(&["release", "--leak-drill"]);
    let (stdout, stderr) = text(&drill);
    assert_eq!(drill.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(layer_line(&stdout, 3).contains("verdict leak"), "{stdout}");
    assert_no_canary_text(&drill);
}

#[test]
fn a_leak_drill_binary_is_refused_for_a_release_image_and_a_dynamic_one_too() {
    // These checks come before Docker is asked, so they run everywhere.
    let drill = answers_leak_drill()
        .to_str()
        .expect("utf-8 path")
        .to_owned();
    let out = phi_ci(&["release", "--answers-bin", &drill]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is a leak-drill build; refusing"),
        "{stderr}"
    );

    let plain = answers_debug().to_str().expect("utf-8 path").to_owned();
    let out = phi_ci(&["release", "--answers-bin", &plain, "--leak-drill"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is not a leak-drill build"), "{stderr}");

    let out = phi_ci(&["release", "--answers-bin", &plain]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is not statically linked"), "{stderr}");
}
