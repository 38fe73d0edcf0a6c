"""sctpbench's Grafana dashboards: what a lab engineer watches during a run and a campaign.

Measurement and field names are those of sctpbench/telemetry/points.py.
"""

from __future__ import annotations

from sctpbench.dashboards.model import Annotation, Dashboard, Panel, Query, Row, Variable

SELECTED = '"experiment" =~ /^$experiment$/ AND "campaign" =~ /^$campaign$/ AND "run" =~ /^$run$/'
CAMPAIGN = '"experiment" =~ /^$experiment$/ AND "campaign" =~ /^$campaign$/'
# Messages, samples and path notifications carry their association's name; timeline events
# and the run's sctp_run point across associations carry `all` (telemetry/points.py):
# queries of timeline events leave ASSOCIATION out, so they show whatever is chosen. A run's
# sctp_run points are its `all` and one per association: each query of them names which it
# reads, or a one-association run is counted twice.
ASSOCIATION = '"association" =~ /^$association$/'
# A path is a peer address: the arrival path of a message (`none` when lost), or the address
# an endpoint samples; the variable offers the client's view of the server's addresses.
PATH = '"path" =~ /^$path$/'
CLIENT_PATHS = f"{SELECTED} AND {ASSOCIATION} AND {PATH} AND \"endpoint\" = 'client' AND $timeFilter"

STATE_MAPPINGS = [{"type": "value", "options": {
    "3": {"text": "ACTIVE", "color": "green", "index": 0},
    "2": {"text": "UNCONFIRMED", "color": "blue", "index": 1},
    "1": {"text": "PF", "color": "orange", "index": 2},
    "0": {"text": "INACTIVE", "color": "red", "index": 3},
    "-1": {"text": "UNKNOWN", "color": "gray", "index": 4},
}}]


def _per_path(title: str, field: str, unit: str, description: str) -> Panel:
    return Panel(
        title, "timeseries",
        (Query(f'SELECT mean("{field}") FROM "sctp_path" WHERE {CLIENT_PATHS} '
               'GROUP BY time($__interval), "run", "association", "path" fill(none)',
               alias="$tag_association $tag_path $tag_run"),),
        width=8, unit=unit, description=description,
    )


RUN_PANELS = Row("Run", (
    Panel("MTT per message (max per interval)", "timeseries",
          (Query(f'SELECT max("mtt_ms") FROM "sctp_message" WHERE {SELECTED} AND {ASSOCIATION} AND $timeFilter '
                 'GROUP BY time($__interval), "run", "association", "path" fill(none)',
                 alias="$tag_association $tag_path $tag_run"),),
          width=16, unit="ms",
          description="Message transfer time, generation at the client to delivery at the server, by arrival path. "
                      "Annotations: timeline events and path state changes.",
          defaults={"custom": {"drawStyle": "points", "pointSize": 4}}),
    Panel("Messages delivered / sent", "stat",
          (Query(f'SELECT count("mtt_ms") AS "delivered", count("seq") AS "sent" FROM "sctp_message" '
                 f'WHERE {SELECTED} AND {ASSOCIATION} AND $timeFilter'),),
          width=8, description="Counts over the selected time range."),
    Panel("Path state (client's view)", "state-timeline",
          (Query(f'SELECT last("state_code") FROM "sctp_path" WHERE {CLIENT_PATHS} '
                 'GROUP BY time($__interval), "run", "association", "path" fill(previous)',
                 alias="$tag_association $tag_path $tag_run"),),
          width=24, height=6, description="SCTP_GET_PEER_ADDR_INFO state of each peer address.",
          defaults={"mappings": STATE_MAPPINGS}),
    _per_path("cwnd per path", "cwnd", "bytes", "Congestion window of each path (client)."),
    _per_path("SRTT per path", "srtt_ms", "ms", "Smoothed RTT of each path (client; kernel jiffies → ms)."),
    _per_path("RTO per path", "rto_ms", "ms", "Retransmission timeout of each path (client)."),
    Panel("MTT per association (mean per interval)", "timeseries",
          (Query(f'SELECT mean("mtt_ms") FROM "sctp_message" WHERE {SELECTED} AND {ASSOCIATION} AND $timeFilter '
                 'GROUP BY time($__interval), "run", "association" fill(none)',
                 alias="$tag_association $tag_run"),),
          width=12, unit="ms", description="Message transfer time of each association, whatever path carried it."),
    Panel("Messages delivered per path", "timeseries",
          (Query(f'SELECT count("mtt_ms") FROM "sctp_message" WHERE {SELECTED} AND {ASSOCIATION} AND "path" != \'none\' '
                 'AND $timeFilter GROUP BY time($__interval), "run", "association", "path" fill(none)',
                 alias="$tag_association $tag_path $tag_run"),),
          width=12, description="Messages arriving on each path per interval: a path switch (failover, handover, "
                                "a policy's choice) shows as traffic moving from one line to another.",
          defaults={"custom": {"drawStyle": "points", "pointSize": 4}}),
    Panel("MTT distribution", "histogram",
          (Query(f'SELECT "mtt_ms" FROM "sctp_message" WHERE {SELECTED} AND {ASSOCIATION} AND $timeFilter'),),
          width=12, unit="ms", options={"bucketCount": 50}),
    Panel("Events", "table",
          (Query(f'SELECT "title", "detail" FROM "sctp_event" WHERE {SELECTED} AND $timeFilter', result_format="table"),),
          width=12),
    Panel("Cumulative TSN acknowledged per association", "timeseries",
          (Query(f'SELECT max("cum_tsn_ack") FROM "sctp_cum_tsn" WHERE {SELECTED} AND {ASSOCIATION} AND $timeFilter '
                 'GROUP BY time($__interval), "run", "association" fill(none)',
                 alias="$tag_association $tag_run"),),
          width=12, unit="chunks",
          description="DATA chunks the server has acknowledged in sequence (each SACK's cumulative TSN ack, counted "
                      "from the client's initial TSN), from the client's captures: runs with measure.capture only, "
                      "sent when the run ends. A stall is a handover or failover the transfer waited through."),
    Panel("Handover delay per path switch", "timeseries",
          (Query(f'SELECT "delay_ms" FROM "sctp_handover" WHERE {SELECTED} AND {ASSOCIATION} AND $timeFilter '
                 'GROUP BY "run", "association", "cause"',
                 alias="$tag_association $tag_cause $tag_run"),),
          width=12, unit="ms",
          description="Each change of the primary path (a timeline step, a policy's switch, a ping-pong move) at its "
                      "decision's moment: how long until a message arrived over the new path. Also marked on the time "
                      "axes (annotation \"path switches\"). Sent when the run ends: a delay needs the messages after it.",
          defaults={"custom": {"drawStyle": "points", "pointSize": 6}}),
    Panel("Policy decisions and their inputs", "table",
          (Query(f'SELECT "association", "decision", "path", "chosen", "state", "srtt_ms", "rto_ms", "cwnd", '
                 f'"short_ms", "long_ms", "signal_dbm", "title" FROM "sctp_policy" WHERE {SELECTED} AND {ASSOCIATION} '
                 'AND $timeFilter', result_format="table"),),
          width=12,
          description="Every decision of the client's path-selection policy (switch, switch-failed, guard, cancel, "
                      "prepare), one row per path it weighed: the path's state, SRTT, RTO and cwnd as the policy saw "
                      "them, the predictive policy's short and long averages, the signal policy's dBm; `chosen` marks "
                      "the candidate."),
    Panel("Competing flows' throughput", "timeseries",
          (Query(f'SELECT mean("bits_per_second") FROM "tcp_throughput" WHERE {SELECTED} AND $timeFilter '
                 'GROUP BY time($__interval), "run", "flow" fill(none)', alias="$tag_flow $tag_run"),),
          width=12, unit="bps",
          description="Each competing TCP flow (traffic:) per iperf3 interval: the sender's rate, what it wrote into its "
                      "socket, which runs ahead of the path by its send buffer (the flow's throughput, what its receiver "
                      "got, is in the run's summary). Sent when the run ends (iperf3 reports at its end).",
          defaults={"custom": {"drawStyle": "points", "pointSize": 4}}),
))

CAMPAIGN_PANELS = Row("Campaign", (
    Panel("Runs landed, by status", "stat",
          (Query(f'SELECT count("seed") FROM "sctp_run" WHERE {CAMPAIGN} AND "association" = \'all\' GROUP BY "status"',
                 alias="$tag_status"),),
          width=24, height=4,
          description="Runs of the selected campaigns that have finished: ok, disturbed (timing outside the "
                      "self-check's tolerances) and failed, as they land (not limited to the time range)."),
    Panel("Failover and detection time per run", "barchart",
          (Query(f'SELECT "failover_time_ms", "detection_time_ms", "detection_model_ms" FROM "sctp_run" '
                 f'WHERE {CAMPAIGN} AND {ASSOCIATION} AND "association" != \'all\' GROUP BY "run", "association"',
                 result_format="table"),),
          width=16, unit="ms",
          description="Every association of every run of the selected campaigns (not limited to the time range), "
                      "with the RFC timer model: one group per association, not the run's 'all' beside it.",
          options={"xField": "run"}),
    Panel("Runs", "table",
          (Query(f'SELECT "mtt_p50_ms", "mmtt_ms", "failover_time_ms", "detection_time_ms", "messages_sent", '
                 f'"messages_delivered" FROM "sctp_run" WHERE {CAMPAIGN} AND {ASSOCIATION} AND "association" != \'all\' '
                 'GROUP BY "run", "repetition", "association", "status"',
                 result_format="table"),),
          width=8, description="Every association of every run of the selected campaigns: one row each, not the "
                               "run's 'all' beside it."),
    Panel("Headline metrics per configuration", "table",
          (Query(f'SELECT count("seed") AS "runs", mean("mtt_p50_ms") AS "mtt_p50_ms", max("mmtt_ms") AS "mmtt_ms", '
                 'mean("failover_time_ms") AS "failover_time_ms", mean("detection_time_ms") AS "detection_time_ms", '
                 'mean("handover_delay_ms") AS "handover_delay_ms" '
                 f'FROM "sctp_run" WHERE {CAMPAIGN} AND "association" = \'all\' GROUP BY "campaign", "config"',
                 result_format="table"),),
          width=16,
          description="Each configuration of the selected campaigns (tag config: its swept values) over the runs "
                      "landed so far, whatever their status: runs, MTT p50 and failover, detection and handover delay "
                      "(means), MMTT (the highest). Not limited to the time range."),
    Panel("Failover time per configuration", "barchart",
          (Query(f'SELECT mean("failover_time_ms") AS "failover_time_ms", mean("detection_time_ms") AS "detection_time_ms" '
                 f'FROM "sctp_run" WHERE {CAMPAIGN} AND "association" = \'all\' GROUP BY "config"', result_format="table"),),
          width=8, unit="ms", description="Mean over each configuration's runs landed so far.",
          options={"xField": "config"}),
    Panel("Timing self-check per run", "table",
          (Query(f'SELECT "selfcheck_lateness_p99_ms", "selfcheck_lateness_max_ms", "selfcheck_event_lag_max_ms", '
                 f'"selfcheck_delay_excess_ms", "selfcheck_reasons" FROM "sctp_run" WHERE {CAMPAIGN} '
                 'AND "association" = \'all\' GROUP BY "run", "status"', result_format="table"),),
          width=24,
          description="How late the sender and the timeline were, and MTT above the configured delay (low quantile, ms). "
                      "A run outside the experiment's measure.selfcheck tolerances has status disturbed."),
))

VARIABLES = (
    Variable("experiment", "experiment", 'SHOW TAG VALUES FROM "sctp_message" WITH KEY = "experiment"'),
    Variable("campaign", "campaign",
             'SHOW TAG VALUES FROM "sctp_message" WITH KEY = "campaign" WHERE "experiment" =~ /^$experiment$/'),
    Variable("run", "run", f'SHOW TAG VALUES FROM "sctp_message" WITH KEY = "run" WHERE {CAMPAIGN}'),
    # The associations' names, from their messages (there while a run goes); "All" (.*)
    # also matches `all`, the run's sctp_run point across associations.
    Variable("association", "association",
             f'SHOW TAG VALUES FROM "sctp_message" WITH KEY = "association" WHERE {CAMPAIGN} AND "run" =~ /^$run$/'),
    Variable("path", "path",
             f'SHOW TAG VALUES FROM "sctp_path" WITH KEY = "path" WHERE {SELECTED} AND {ASSOCIATION} AND "endpoint" = \'client\''),
)

ANNOTATIONS = (
    Annotation("timeline events",
               f'SELECT "title", "detail", "kind" FROM "sctp_event" WHERE {SELECTED} AND "source" = \'timeline\' '
               'AND $timeFilter', "red"),
    Annotation("path state changes",
               f'SELECT "title", "detail", "kind" FROM "sctp_event" WHERE {SELECTED} AND {ASSOCIATION} AND "source" = \'client\' '
               'AND $timeFilter', "orange"),
    Annotation("path switches",
               f'SELECT "title", "cause" AS "kind" FROM "sctp_handover" WHERE {SELECTED} AND {ASSOCIATION} AND $timeFilter',
               "purple"),
)

RUNS = Dashboard(
    uid="sctpbench-runs", title="sctpbench: runs and campaigns",
    description="Live and past sctpbench runs: MTT, path states, cwnd/SRTT/RTO, failover across a campaign.",
    variables=VARIABLES, annotations=ANNOTATIONS, rows=(RUN_PANELS, CAMPAIGN_PANELS),
)

DASHBOARDS = (RUNS,)
