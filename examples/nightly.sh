#!/bin/sh
# A nightly CI job: run a campaign, compare it with the accepted baseline, leave JUnit XML
# for the CI to show, and fail the job when something got worse.
#
#   examples/nightly.sh [CAMPAIGN_FILE]
#
# Environment: RESULTS (default results/nightly; one folder per night), BASELINE (the
# accepted campaign folder, default results/baseline/<campaign name>), PARALLEL (guests at
# once, default sctpbench's), SCTPBENCH (the command, default .venv/bin/sctpbench).
# A night cut short (a CI timeout sends SIGTERM) resumes when the job is re-run the same
# day: finished runs are kept and never repeated. The first night becomes the baseline;
# after that, accept a night as the new baseline by copying its folder over BASELINE.
# Exit status: 0 no regression, 1 regression, over budget or failed runs, 2 bad input,
# 130 interrupted.
set -eu
cd "$(dirname "$0")/.."
CAMPAIGN=${1:-examples/campaigns/failover-tuning.yaml}
SCTPBENCH=${SCTPBENCH:-.venv/bin/sctpbench}
OUT=${RESULTS:-results/nightly}/$(date +%Y-%m-%d)

# The dry run checks the file (exit 2 on bad input) and names the campaign's folder.
folder=$($SCTPBENCH campaign run "$CAMPAIGN" --out "$OUT" --dry-run | sed -n 's/.*; folder //p')
BASELINE=${BASELINE:-results/baseline/$(basename "$folder")}

status=0
$SCTPBENCH campaign run "$CAMPAIGN" --out "$OUT" ${PARALLEL:+--parallel "$PARALLEL"} || status=$?
[ "$status" -eq 130 ] && exit 130

if [ ! -f "$BASELINE/campaign.parquet" ]; then
    echo "nightly: no baseline at $BASELINE yet; tonight's campaign becomes it"
    mkdir -p "$(dirname "$BASELINE")"
    cp -r "$folder" "$BASELINE"
    exit "$status"
fi
$SCTPBENCH campaign compare "$folder" "$BASELINE" --junit "$OUT/junit.xml" || status=$?
echo "nightly: JUnit XML in $OUT/junit.xml, tables in $folder"
exit "$status"
