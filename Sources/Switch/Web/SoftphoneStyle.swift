/// The softphone's style sheet (served as "/softphone.css").
enum SoftphoneStyle {
    static let source = #"""
body { font-family: system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
main { max-width: 44rem; margin: 1.5rem auto; padding: 1rem 1.5rem; background: #fff; border-radius: 8px; box-shadow: 0 1px 4px #0002; }
h1 { font-size: 1.4rem; margin-top: 0; }
label { display: inline-block; margin: 0.25rem 0.75rem 0.25rem 0; }
label.inline { margin-right: 1rem; }
input { padding: 0.3rem; }
button { padding: 0.35rem 0.9rem; margin: 0.15rem; border-radius: 4px; border: 1px solid #8893a5; background: #eef1f6; cursor: pointer; }
button:disabled { opacity: 0.45; cursor: default; }
#answer { background: #2e9e55; color: #fff; border-color: #2e9e55; }
#hangup, #decline { background: #c43d3d; color: #fff; border-color: #c43d3d; }
.state { font-size: 1.2rem; }
#call-state { text-transform: uppercase; letter-spacing: 0.04em; }
.keypad { display: grid; grid-template-columns: repeat(4, 3rem); gap: 0.3rem; margin: 0.6rem 0; }
.keypad button { height: 2.5rem; font-size: 1.1rem; margin: 0; }
meter { width: 10rem; }
table { border-collapse: collapse; min-width: 28rem; margin-top: 0.5rem; font-size: 0.9rem; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.3rem; }
td { border-top: 1px solid #dde1e8; padding: 0.15rem 0.8rem 0.15rem 0; font-family: ui-monospace, monospace; }
#status { color: #555; }
#log { font-size: 0.8rem; color: #555; max-height: 10rem; overflow-y: auto; }
"""#
}
