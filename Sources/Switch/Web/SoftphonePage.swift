/// The softphone's HTML (served as "/"). Script and style are separate files: the page's
/// content security policy allows no inline code.
enum SoftphonePage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley softphone</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/softphone.css">
<script src="/softphone.js" defer></script>
</head>
<body>
<main>
  <header>
    <h1>Parley softphone</h1>
    <p id="status" role="status">Not connected</p>
  </header>
  <div class="columns">
  <div class="primary">
  <section id="login-panel" class="card">
    <h2>Log in</h2>
    <form id="login-form">
      <label>Login <input id="login" name="login" autocomplete="username" required></label>
      <label>Password <input id="password" name="password" type="password" autocomplete="current-password" required></label>
      <button id="login-button" type="submit">Log in</button>
    </form>
  </section>
  <section id="phone-panel" class="card" hidden>
    <p class="me">Logged in as <strong id="me"></strong> <button id="logout" type="button">Log out</button></p>
    <form id="dial-form">
      <label>Call <input id="destination" placeholder="a login or bot, e.g. from Online" required></label>
      <button id="dial" type="submit">Call</button>
      <label class="inline"><input id="trickle" type="checkbox" checked> Trickle ICE</label>
    </form>
    <div id="incoming" hidden>
      <p>Incoming call from <strong id="caller"></strong></p>
      <button id="answer" type="button">Answer</button>
      <button id="decline" type="button">Decline</button>
    </div>
    <div id="call-panel">
      <p class="state">Call state: <strong id="call-state">idle</strong> <span id="call-duration" aria-label="call duration"></span></p>
      <p id="call-detail"></p>
      <div class="buttons">
        <button id="hangup" type="button" disabled>Hang up</button>
        <button id="mute" type="button" disabled>Mute</button>
        <button id="hold" type="button" disabled>Hold</button>
      </div>
      <div id="keypad" class="keypad" aria-label="keypad">
        <button type="button">1</button><button type="button">2</button><button type="button">3</button><button type="button">A</button>
        <button type="button">4</button><button type="button">5</button><button type="button">6</button><button type="button">B</button>
        <button type="button">7</button><button type="button">8</button><button type="button">9</button><button type="button">C</button>
        <button type="button">*</button><button type="button">0</button><button type="button">#</button><button type="button">D</button>
      </div>
      <div class="levels">
        <label>Input <meter id="input-level" min="0" max="1" value="0"></meter></label>
        <label>Output <meter id="output-level" min="0" max="1" value="0"></meter></label>
      </div>
      <p class="digits">Sent digits: <code id="sent-digits"></code> · Heard digits: <code id="heard-digits"></code> · Hearing: <code id="heard-frequency">–</code></p>
    </div>
  </section>
  </div>
  <aside class="secondary">
    <section class="card">
      <h2>Online</h2>
      <ul id="online"></ul>
      <p id="online-empty" class="hint">Nobody else is logged in.</p>
    </section>
    <section class="card">
      <table id="stats" hidden><caption>Call statistics <span class="hint">(hover a name for its getStats field)</span></caption><tbody></tbody></table>
      <details><summary>Log</summary><ol id="log"></ol></details>
    </section>
  </aside>
  </div>
  <audio id="remote-audio" autoplay></audio>
</main>
</body>
</html>
"""#
}
