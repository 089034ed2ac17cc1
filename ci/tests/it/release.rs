//! `phi-ci release` against the real Docker engine: it fails if Docker does not answer, unless
//! `PHI_SKIP_DOCKER=1` says so explicitly.

use super::{
    answers_debug, answers_leak_drill, assert_no_canary_text, layer_line, phi_ci, target_dir, utf8,
};

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
    // The dev profile checks the same pipeline as `release` at a fraction of the compile time.
    let out = phi_ci(&["release", "--cargo-profile", "dev"]);
    out.assert_code(0);
    let stdout = out.stdout.as_str();
    assert!(layer_line(stdout, 2).contains("stop clean"), "{stdout}");
    // The image held the static link, and the ordinary binary is back in its place after it.
    assert!(
        layer_line(stdout, 2).contains("binary static-pie linked")
            || layer_line(stdout, 2).contains("binary statically linked"),
        "{stdout}"
    );
    let ordinary = target_dir().join("debug").join("answers");
    let file = std::process::Command::new("file")
        .arg("-b")
        .arg(&ordinary)
        .output()
        .expect("run `file`");
    let what = String::from_utf8_lossy(&file.stdout);
    assert!(
        what.contains("dynamically linked"),
        "{} after the release check: {what}",
        ordinary.display()
    );
    let e2e = layer_line(stdout, 3);
    assert!(
        e2e.contains("PASS") && e2e.contains("markers proven 2/2"),
        "{e2e}"
    );
    // The container reached the receiver on the host: both markers, a span per call.
    let telemetry = layer_line(stdout, 4);
    assert!(
        telemetry.contains("PASS")
            && telemetry.contains("markers proven 2/2")
            && telemetry.contains("spans 72,"),
        "{telemetry}"
    );
    assert_no_canary_text(&out);

    let drill = phi_ci(&[
        "release",
        "--leak-drill",
        "--cargo-profile",
        "dev",
        "--keep",
    ]);
    drill.assert_code(1);
    let stdout = drill.stdout.as_str();
    assert!(layer_line(stdout, 3).contains("verdict leak"), "{stdout}");
    assert!(layer_line(stdout, 4).contains("verdict leak"), "{stdout}");
    assert!(
        stdout.contains("traces request") && stdout.contains("> attribute \"message\""),
        "{stdout}"
    );
    assert_no_canary_text(&drill);

    // The same static drill, given by path (the copy the kept run directory holds), is judged
    // by what it emits: phi-ci does not know it built it, and the check still fails at layers 3
    // and 4.
    let kept = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("run directory: "))
        .map_or_else(
            || panic!("--keep printed no run directory:\n{stdout}"),
            std::path::PathBuf::from,
        );
    let static_drill = kept.join("answers");
    assert!(
        static_drill.is_file(),
        "the kept run directory holds no binary: {}",
        static_drill.display()
    );
    let bin = static_drill.to_str().expect("utf-8 path");
    let given = phi_ci(&["release", "--answers-bin", bin]);
    std::fs::remove_dir_all(&kept).expect("remove the kept run directory");
    given.assert_code(1);
    let stdout = given.stdout.as_str();
    assert!(layer_line(stdout, 3).contains("verdict leak"), "{stdout}");
    assert!(layer_line(stdout, 4).contains("verdict leak"), "{stdout}");
    assert_no_canary_text(&given);
}

#[test]
fn the_drill_is_only_built_and_a_given_dynamic_binary_is_refused() {
    // These checks come before Docker is asked, so they run everywhere.
    let drill = utf8(answers_leak_drill());
    let plain = utf8(answers_debug());
    // phi-ci knows the drill by what it built: --leak-drill takes no given binary.
    for bin in [drill, plain] {
        let out = phi_ci(&["release", "--answers-bin", bin, "--leak-drill"]);
        out.assert_code(2);
        let stderr = out.stderr.as_str();
        assert!(
            stderr.contains("cannot be used with")
                && stderr.contains("'--leak-drill'")
                && stderr.contains("'--answers-bin <PATH>'"),
            "{stderr}"
        );
    }

    // A given binary is judged as a release candidate, whatever it holds: the debug drill is
    // refused for being dynamic, as the plain debug build is.
    let out = phi_ci(&["release", "--answers-bin", drill]);
    out.assert_code(2);
    let stderr = out.stderr.as_str();
    assert!(stderr.contains("is not statically linked"), "{stderr}");

    let out = phi_ci(&["release", "--answers-bin", plain]);
    out.assert_code(2);
    let stderr = out.stderr.as_str();
    assert!(stderr.contains("is not statically linked"), "{stderr}");
}
