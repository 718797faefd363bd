/// The softphone's style sheet (served as "/softphone.css").
enum SoftphoneStyle {
    static let source = #"""
* { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; line-height: 1.4; }
main { max-width: 64rem; margin: 0 auto; padding: 1rem; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.5rem 1.5rem; margin-bottom: 0.75rem; }
h1 { font-size: 1.4rem; margin: 0; }
h2 { font-size: 1rem; margin: 0 0 0.5rem; }
.columns { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1rem; align-items: start; }
@media (max-width: 760px) { .columns { grid-template-columns: minmax(0, 1fr); } }
.card { background: #fff; border-radius: 8px; box-shadow: 0 1px 4px #0002; padding: 1rem 1.25rem; margin-bottom: 1rem; }
.secondary .card:last-child { margin-bottom: 0; }
label { display: inline-block; margin: 0.25rem 0.75rem 0.25rem 0; }
label.inline { margin-right: 1rem; }
input { padding: 0.35rem; font: inherit; max-width: 100%; }
#destination { width: 16rem; }
button { font: inherit; padding: 0.35rem 0.9rem; margin: 0.15rem; border-radius: 4px; border: 1px solid #8893a5; background: #eef1f6; color: inherit; cursor: pointer; }
button:disabled { opacity: 0.4; cursor: not-allowed; }
#answer, #dial { background: #2e9e55; color: #fff; border-color: #2e9e55; }
#hangup, #decline { background: #c43d3d; color: #fff; border-color: #c43d3d; }
.me { margin-top: 0; }
.state { font-size: 1.2rem; margin: 0.75rem 0 0; }
#call-state { text-transform: uppercase; letter-spacing: 0.04em; }
#call-state[data-state="active"] { color: #1f7a3f; }
#call-state[data-state="ended"] { color: #8a2a2a; }
#call-duration { font-variant-numeric: tabular-nums; margin-left: 0.5rem; font-size: 1.1rem; color: #333; }
#call-detail { color: #555; margin: 0.2rem 0 0.5rem; min-height: 1.4em; overflow-wrap: anywhere; }
.keypad { display: grid; grid-template-columns: repeat(4, 3.5rem); gap: 0.4rem; margin: 0.75rem 0; }
.keypad button { height: 2.75rem; font-size: 1.15rem; margin: 0; }
.levels label { display: flex; align-items: center; gap: 0.5rem; margin: 0.3rem 0; }
.levels label { width: 16rem; justify-content: space-between; }
meter { width: 11rem; height: 1rem; }
.digits { overflow-wrap: anywhere; }
#status { color: #555; margin: 0; overflow-wrap: anywhere; }
#online { list-style: none; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: 0.3rem; }
#online .person::before { content: "\25CF"; color: #2e9e55; margin-right: 0.4rem; font-size: 0.8em; }
.hint { color: #666; font-size: 0.85rem; font-weight: normal; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.4rem; }
th { text-align: left; font-weight: normal; color: #444; padding: 0.2rem 0.8rem 0.2rem 0; border-top: 1px solid #dde1e8; cursor: help; }
td { border-top: 1px solid #dde1e8; padding: 0.2rem 0; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; text-align: right; }
details { margin-top: 0.75rem; }
#log { font-size: 0.8rem; color: #555; max-height: 12rem; overflow-y: auto; padding-left: 1.2rem; }
"""#
}
