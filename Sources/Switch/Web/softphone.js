// The softphone's script (served as "/softphone.js", embedded into the binary by Package.swift):
// a Verto client (docs/signaling.md) on the page's own origin, an RTCPeerConnection per call,
// WebAudio meters, and `getStats` figures under the names `parley --json` uses.
// `window.softphone` exposes its state to the console and to tests.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const ROWS = [697, 770, 852, 941];
  const COLUMNS = [1209, 1336, 1477, 1633];
  const KEYS = ["123A", "456B", "789C", "*0#D"];
  const PREFIX = "telnyx_rtc.";

  // crypto.randomUUID exists only in secure contexts; the page still explains itself elsewhere.
  const uuid = () => (crypto.randomUUID ? crypto.randomUUID() :
    "10000000-1000-4000-8000-100000000000".replace(/[018]/g, (c) => (c ^ (crypto.getRandomValues(new Uint8Array(1))[0] & (15 >> (c / 4)))).toString(16)));

  const phone = {
    socket: null, sessid: uuid(), nextID: 1, pending: new Map(), me: null, call: null,
    audio: null, micStream: null, inputAnalyser: null, outputAnalyser: null,
    sentDigits: "", heardDigits: "", heardFrequency: null, inputLevel: 0, outputLevel: 0,
    stats: {}, history: [], restarts: 0, reoffers: 0, reattaches: 0, attachAnsweredAt: null, oldConnectionClosedAt: null, log: [],
    loginError: null, online: [], durationSeconds: null,
  };
  window.softphone = phone;

  function note(text) {
    const line = new Date().toISOString().slice(11, 23) + " " + text;
    phone.log.push(line);
    if (phone.log.length > 200) phone.log.shift();
    const item = document.createElement("li");
    item.textContent = line;
    $("log").prepend(item);
    while ($("log").children.length > 50) $("log").lastChild.remove();
  }
  function status(text) { $("status").textContent = text; }

  // MARK: Verto over the page's own WebSocket

  function send(frame) {
    if (!phone.socket || phone.socket.readyState !== WebSocket.OPEN) throw new Error("not connected");
    phone.socket.send(JSON.stringify(frame));
  }

  function request(method, params, timeoutMs = 10000) {
    const id = String(phone.nextID++);
    const full = method === "login" ? method : PREFIX + method;
    const body = Object.assign({ sessid: phone.sessid, "User-Agent": navigator.userAgent }, params);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { phone.pending.delete(id); reject(new Error(method + " timed out")); }, timeoutMs);
      phone.pending.set(id, { resolve, reject, timer, method });
      try { send({ jsonrpc: "2.0", id, method: full, params: body }); } catch (error) { clearTimeout(timer); phone.pending.delete(id); reject(error); }
    });
  }

  function reply(frame, result = {}) {
    try { send({ jsonrpc: "2.0", id: frame.id, result: Object.assign({ method: frame.method }, result) }); } catch (error) { note("reply failed: " + error.message); }
  }

  function connect(login, password) {
    // A reload keeps the tab's sessid for this login, so the switch re-offers the calls it left
    // (as verto.js's recovery does); another login in the same tab gets its own.
    phone.sessid = sessionStorage.getItem("parley.sessid." + login) || uuid();
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/";
    status("Connecting to " + url);
    const socket = new WebSocket(url);
    phone.socket = socket;
    phone.loginError = null;
    socket.onopen = async () => {
      try {
        const result = await request("login", { login, passwd: password, loginParams: {}, userVariables: {} });
        if (result && result.sessid) phone.sessid = result.sessid;
        sessionStorage.setItem("parley.sessid." + login, phone.sessid);
        phone.me = login;
        $("me").textContent = login;
        refreshOnline();
        $("login-panel").hidden = true;
        $("phone-panel").hidden = false;
        status("Logged in as " + login);
        note("logged in as " + login);
      } catch (error) {
        // The switch closes the socket after a refused login: keep its reason for onclose.
        phone.loginError = error.message;
        status("Login refused: " + error.message);
        note("login refused: " + error.message);
        socket.close();
      }
    };
    socket.onmessage = (event) => receive(event.data);
    socket.onclose = () => {
      if (phone.socket !== socket) return;
      phone.socket = null;
      for (const waiter of phone.pending.values()) { clearTimeout(waiter.timer); waiter.reject(new Error("connection closed")); }
      phone.pending.clear();
      if (phone.call) finish("connection lost");
      $("login-panel").hidden = false;
      $("phone-panel").hidden = true;
      status(phone.loginError ? "Login refused: " + phone.loginError : "Disconnected");
    };
  }

  function receive(text) {
    let frame;
    try { frame = JSON.parse(text); } catch { note("ignored a frame that is not JSON"); return; }
    if (!frame.method) {
      const waiter = phone.pending.get(String(frame.id));
      if (!waiter) return;
      phone.pending.delete(String(frame.id));
      clearTimeout(waiter.timer);
      if (frame.error) waiter.reject(new Error((frame.error.message || "error") + " (" + frame.error.code + ")"));
      else waiter.resolve(frame.result || {});
      return;
    }
    const name = frame.method.replace(/^(telnyx_rtc|verto)\./, "");
    const params = frame.params || {};
    const callID = params.callID || (params.dialogParams && (params.dialogParams.callID || params.dialogParams.callId));
    const call = phone.call && phone.call.id === callID ? phone.call : null;
    switch (name) {
      case "invite": return incoming(frame, params);
      case "ringing": reply(frame); if (call) setState("ringing"); return;
      case "media": reply(frame); if (call) remoteAnswer(call, params.sdp, "early media"); return;
      case "answer": reply(frame); if (call) remoteAnswer(call, params.sdp, "active"); return;
      case "bye": reply(frame); if (call) finish("ended: " + (params.cause || "NORMAL_CLEARING")); return;
      case "modify": return modified(frame, call, params);
      case "info":
        reply(frame);
        if (call && params.dtmf) { phone.heardDigits += params.dtmf; render(); note("digits by Verto info: " + params.dtmf.length); }
        return;
      case "attach": return attached(frame, params);
      case "candidate":
        reply(frame);
        // With trickle off the page is a browser SDK with trickleIce false: it never applies a
        // trickled candidate, so what it does not get in the SDP it never learns.
        if (call && call.trickle && params.candidate) remoteCandidate(call, { candidate: params.candidate.replace(/^a=/, ""), sdpMid: params.sdpMid ?? undefined, sdpMLineIndex: params.sdpMLineIndex ?? 0 });
        return;
      case "endOfCandidates": reply(frame); return;
      case "punt": reply(frame); note("logged in elsewhere"); phone.socket && phone.socket.close(); return;
      default: reply(frame); return;
    }
  }

  // MARK: Calls

  function newCall(id, direction, party, trickle) {
    const call = {
      id, direction, party, trickle, pc: null, sender: null, remoteOffer: null, localSent: false, remoteSet: false,
      queuedLocal: [], queuedRemote: [], held: false, remoteHeld: false, muted: false, renegotiating: false, started: Date.now(),
    };
    phone.call = call;
    phone.sentDigits = "";
    phone.heardDigits = "";
    phone.stats = {};
    return call;
  }

  async function microphone() {
    if (!phone.audio) phone.audio = new AudioContext();
    if (phone.audio.state === "suspended") await phone.audio.resume();
    const stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false }, video: false });
    phone.micStream = stream;
    phone.inputAnalyser = analyser(stream, 8192);
    return stream;
  }

  function analyser(stream, size) {
    const node = phone.audio.createAnalyser();
    node.fftSize = size;
    node.smoothingTimeConstant = 0;
    phone.audio.createMediaStreamSource(stream).connect(node);
    return node;
  }

  function peer(call, stream) {
    const pc = new RTCPeerConnection({ iceServers: [], bundlePolicy: "max-bundle", rtcpMuxPolicy: "require" });
    call.pc = pc;
    for (const track of stream.getAudioTracks()) call.sender = pc.addTrack(track, stream);
    if (call.sender && call.sender.dtmf) {
      call.sender.dtmf.ontonechange = (event) => { if (event.tone) { phone.sentDigits += event.tone; render(); } };
    }
    pc.ontrack = (event) => {
      const remote = event.streams[0] || new MediaStream([event.track]);
      // Chrome feeds WebAudio from a remote stream only while a media element plays it too.
      $("remote-audio").srcObject = remote;
      $("remote-audio").play().catch(() => {});
      phone.outputAnalyser = analyser(remote, 8192);
    };
    pc.onicecandidate = (event) => {
      if (!call.trickle || call.renegotiating) return;
      const candidate = event.candidate && event.candidate.candidate ? event.candidate : null;
      if (!call.localSent) { call.queuedLocal.push(candidate); return; }
      sendCandidate(call, candidate);
    };
    pc.oniceconnectionstatechange = () => { note("ICE " + pc.iceConnectionState); renderDetail(); };
    pc.onconnectionstatechange = () => { note("connection " + pc.connectionState); renderDetail(); };
    return pc;
  }

  function sendCandidate(call, candidate) {
    if (phone.call !== call) return;
    const dialogParams = { callID: call.id };
    const sent = candidate
      ? request("candidate", { candidate: candidate.candidate, sdpMid: candidate.sdpMid, sdpMLineIndex: candidate.sdpMLineIndex, dialogParams })
      : request("endOfCandidates", { endOfCandidates: true, dialogParams });
    sent.catch((error) => note("candidate refused: " + error.message));
  }

  function flushLocal(call) {
    call.localSent = true;
    for (const candidate of call.queuedLocal.splice(0)) sendCandidate(call, candidate);
  }

  async function remoteCandidate(call, candidate) {
    if (!call.remoteSet) { call.queuedRemote.push(candidate); return; }
    try { await call.pc.addIceCandidate(candidate); } catch (error) { note("remote candidate ignored: " + error.message); }
  }

  async function remoteDescription(call, description) {
    await call.pc.setRemoteDescription(description);
    call.remoteSet = true;
    for (const candidate of call.queuedRemote.splice(0)) await remoteCandidate(call, candidate);
  }

  /// Our description with every candidate in it (vanilla ICE), waiting at most five seconds.
  function gathered(pc) {
    return new Promise((resolve) => {
      const done = () => resolve(pc.localDescription.sdp);
      if (pc.iceGatheringState === "complete") return done();
      const timer = setTimeout(done, 5000);
      pc.addEventListener("icegatheringstatechange", () => {
        if (pc.iceGatheringState === "complete") { clearTimeout(timer); done(); }
      });
    });
  }

  async function dial(destination) {
    if (phone.call) return;
    const trickle = $("trickle").checked;
    const call = newCall(uuid(), "outbound", destination, trickle);
    setState("calling");
    try {
      const pc = peer(call, await microphone());
      await pc.setLocalDescription(await pc.createOffer());
      const sdp = trickle ? pc.localDescription.sdp : await gathered(pc);
      const dialogParams = { callID: call.id, destination_number: destination, caller_id_name: phone.me, caller_id_number: phone.me,
        remote_caller_id_name: destination, audio: true, video: false, useStereo: false, attach: false, screenShare: false };
      await request("invite", trickle ? { sdp, trickle: true, dialogParams } : { sdp, dialogParams });
      flushLocal(call);
      note("calling " + destination + (trickle ? " (trickle ICE)" : " (vanilla ICE)"));
    } catch (error) {
      note("call failed: " + error.message);
      finish("failed: " + error.message);
    }
  }

  function incoming(frame, params) {
    if (phone.call) {
      reply(frame);
      request("bye", { cause: "USER_BUSY", causeCode: 17, dialogParams: { callID: params.callID } }).catch(() => {});
      return;
    }
    reply(frame);
    const call = newCall(params.callID, "inbound", params.caller_id_name || params.caller_id_number || "unknown", $("trickle").checked);
    call.remoteOffer = params.sdp;
    $("caller").textContent = call.party;
    $("incoming").hidden = false;
    setState("incoming");
    note("incoming call from " + call.party);
  }

  async function answer() {
    const call = phone.call;
    if (!call || call.direction !== "inbound" || call.pc) return;
    $("incoming").hidden = true;
    setState("answering");
    try {
      const pc = peer(call, await microphone());
      await remoteDescription(call, { type: "offer", sdp: call.remoteOffer });
      await pc.setLocalDescription(await pc.createAnswer());
      const sdp = call.trickle ? pc.localDescription.sdp : await gathered(pc);
      const dialogParams = { callID: call.id, audio: true, video: false, useStereo: false, attach: false, screenShare: false };
      await request("answer", call.trickle ? { sdp, trickle: true, dialogParams } : { sdp, dialogParams });
      flushLocal(call);
      setState("active");
    } catch (error) {
      note("answer failed: " + error.message);
      hangup("NORMAL_TEMPORARY_FAILURE", 41);
    }
  }

  // MARK: Re-attach, as a browser SDK does after its socket dropped: log in again with the same
  // sessid and answer the server's attach from a brand-new RTCPeerConnection, which has a new
  // certificate and new ICE credentials (docs/browser.md).

  function reattach(password) {
    const call = phone.call;
    if (!call || !phone.socket || !phone.me) return false;
    const old = phone.socket;
    phone.socket = null;  // its close must not end the call
    old.close();
    connect(phone.me, password);
    return true;
  }

  async function attached(frame, params) {
    reply(frame);
    if (!params.sdp) return;
    let call = phone.call && phone.call.id === params.callID ? phone.call : null;
    if (!call && !phone.call) {
      // After a reload the page has no call: the switch's attach brings it back.
      const outbound = params.caller_id_number === phone.me;
      call = newCall(params.callID, outbound ? "outbound" : "inbound", (outbound ? params.callee_id_name : params.caller_id_name) || "unknown", $("trickle").checked);
      call.answeredAt = Date.now();
    }
    if (!call) return;
    phone.oldConnectionClosedAt = Date.now();
    if (call.pc) call.pc.close();
    Object.assign(call, { pc: null, remoteSet: false, localSent: false, queuedLocal: [], queuedRemote: [] });
    try {
      const pc = peer(call, phone.micStream || await microphone());
      await remoteDescription(call, { type: "offer", sdp: params.sdp });
      await pc.setLocalDescription(await pc.createAnswer());
      const sdp = call.trickle ? pc.localDescription.sdp : await gathered(pc);
      const dialogParams = { callID: call.id, audio: true, video: false, useStereo: false, attach: true, screenShare: false };
      await request("attach", call.trickle ? { sdp, trickle: true, dialogParams } : { sdp, dialogParams });
      phone.attachAnsweredAt = Date.now();
      phone.reattaches += 1;
      flushLocal(call);
      setState(holdState(call));
      note("re-attached from a new peer connection");
    } catch (error) {
      note("re-attach failed: " + error.message);
    }
  }

  async function remoteAnswer(call, sdp, state) {
    if (sdp && !call.remoteSet) {
      try { await remoteDescription(call, { type: "answer", sdp }); } catch (error) { note("bad answer: " + error.message); return hangup("INCOMPATIBLE_DESTINATION", 88); }
    }
    setState(state);
  }

  async function hangup(cause = "NORMAL_CLEARING", causeCode = 16) {
    const call = phone.call;
    if (!call) return;
    finish("ended: " + cause + " (ours)");
    try { await request("bye", { cause, causeCode, dialogParams: { callID: call.id } }); } catch (error) { note("bye: " + error.message); }
  }

  function finish(reason) {
    const call = phone.call;
    if (!call) return;
    phone.call = null;
    if (call.pc) call.pc.close();
    if (phone.micStream) phone.micStream.getTracks().forEach((track) => track.stop());
    phone.micStream = null;
    phone.inputAnalyser = null;
    phone.outputAnalyser = null;
    $("remote-audio").srcObject = null;
    $("incoming").hidden = true;
    phone.history.push({ id: call.id, reason, seconds: (Date.now() - call.started) / 1000 });
    setState("ended", reason);
    note("call " + reason);
  }

  function sendDigit(digit) {
    const call = phone.call;
    if (!call || !call.sender || !call.sender.dtmf) return;
    if (!call.sender.dtmf.canInsertDTMF) { note("DTMF not possible now"); return; }
    call.sender.dtmf.insertDTMF(call.sender.dtmf.toneBuffer + digit, 120, 80);
  }

  function toggleMute() {
    const call = phone.call;
    if (!call || !phone.micStream) return;
    call.muted = !call.muted;
    phone.micStream.getAudioTracks().forEach((track) => { track.enabled = !call.muted; });
    $("mute").textContent = call.muted ? "Unmute" : "Mute";
  }

  /// Either side's hold stops what we send, as Parley does (docs/calls.md): no RTP while held.
  async function applySending(call) {
    if (!call.sender || !phone.micStream) return;
    const track = call.held || call.remoteHeld ? null : phone.micStream.getAudioTracks()[0];
    await call.sender.replaceTrack(track);
  }

  async function toggleHold() {
    const call = phone.call;
    if (!call) return;
    const action = call.held ? "unhold" : "hold";
    try {
      const result = await request("modify", { action, dialogParams: { callID: call.id } });
      call.held = result.holdState ? result.holdState === "held" : action === "hold";
      await applySending(call);
      setState(holdState(call));
    } catch (error) { note(action + " refused: " + error.message); return; }
    await reofferDirection(call);
  }

  /// Hold in the SDP too, as Parley does (docs/verto-protocol.md): a re-offer of the running
  /// media, a=sendonly while we hold and a=sendrecv after, through updateMedia; no ICE restart.
  async function reofferDirection(call) {
    const transceiver = call.pc && call.pc.getTransceivers()[0];
    if (!transceiver || call.renegotiating) return;
    call.renegotiating = true;
    try {
      transceiver.direction = call.held ? "sendonly" : "sendrecv";
      await call.pc.setLocalDescription(await call.pc.createOffer());
      const result = await request("modify", { action: "updateMedia", sdp: await gathered(call.pc), callID: call.id, dialogParams: { callID: call.id } });
      await call.pc.setRemoteDescription({ type: "answer", sdp: result.sdp });
      note((call.held ? "hold" : "unhold") + " re-offered: media " + transceiver.currentDirection);
    } catch (error) {
      note("hold re-offer refused: " + error.message);
      if (call.pc && call.pc.signalingState === "have-local-offer") await call.pc.setLocalDescription({ type: "rollback" }).catch(() => {});
    } finally {
      call.renegotiating = false;
    }
  }

  /// What the call's audio transceiver asks for and what the last negotiation settled on.
  phone.mediaDirection = () => {
    const transceiver = phone.call && phone.call.pc && phone.call.pc.getTransceivers()[0];
    return transceiver ? { direction: transceiver.direction, currentDirection: transceiver.currentDirection } : null;
  };
  const ufrag = (sdp) => (/a=ice-ufrag:(\S+)/.exec(sdp || "") || [])[1];

  function holdState(call) {
    if (call.held && call.remoteHeld) return "double held";
    if (call.held) return "held";
    if (call.remoteHeld) return "held by far end";
    return "active";
  }

  async function modified(frame, call, params) {
    if (!call) return reply(frame);
    if (params.action === "hold" || params.action === "unhold") {
      reply(frame);
      call.remoteHeld = params.action === "hold";
      await applySending(call);
      note(call.remoteHeld ? "held by the far end: media inactive" : "the far end resumed");
      return setState(holdState(call));
    }
    if (params.action === "updateMedia" && params.sdp && call.pc) {
      // The far end re-offers (an ICE restart, or its hold and unhold, a=sendonly and back):
      // answer with every candidate in the SDP.
      call.renegotiating = true;
      try {
        const restart = ufrag(params.sdp) !== ufrag(call.pc.remoteDescription && call.pc.remoteDescription.sdp);
        await call.pc.setRemoteDescription({ type: "offer", sdp: params.sdp });
        await call.pc.setLocalDescription(await call.pc.createAnswer());
        const sdp = await gathered(call.pc);
        if (restart) phone.restarts += 1; else phone.reoffers += 1;
        const current = call.pc.getTransceivers()[0];
        note(restart ? "ICE restarted by the far end (" + phone.restarts + ")" : "re-offered by the far end: media " + (current && current.currentDirection));
        reply(frame, { sdp, callID: call.id, action: "updateMedia" });
      } catch (error) {
        note("could not renegotiate: " + error.message);
        send({ jsonrpc: "2.0", id: frame.id, error: { code: -32002, message: "MEDIA ERROR: " + error.message } });
      } finally {
        call.renegotiating = false;
      }
      return;
    }
    reply(frame);
  }

  // MARK: Display

  function setState(state, detail = "") {
    if (state === "active" && phone.call && !phone.call.answeredAt) phone.call.answeredAt = Date.now();
    $("call-state").textContent = state;
    $("call-state").dataset.state = state.replace(/ /g, "-");
    $("call-detail").textContent = detail;
    if (!detail) renderDetail();
    const live = !!phone.call;
    for (const id of ["hangup", "mute", "hold"]) $(id).disabled = !live || !phone.call.pc;
    $("hangup").disabled = !live;
    $("hold").textContent = phone.call && phone.call.held ? "Unhold" : "Hold";
    $("mute").textContent = phone.call && phone.call.muted ? "Unmute" : "Mute";
    // Digits go only into a call's media: none before it has a peer connection, none after it.
    const keys = !!(phone.call && phone.call.pc);
    for (const button of $("keypad").querySelectorAll("button")) button.disabled = !keys;
    showOnline();
    render();
  }

  function renderDetail() {
    const call = phone.call;
    if (!call || !call.pc) return;
    $("call-detail").textContent = "ICE " + call.pc.iceConnectionState + ", " + (call.direction === "inbound" ? "from " : "to ") + call.party;
  }

  function render() {
    $("sent-digits").textContent = phone.sentDigits;
    $("heard-digits").textContent = phone.heardDigits;
    $("heard-frequency").textContent = phone.heardFrequency ? Math.round(phone.heardFrequency) + " Hz" : "–";
    const answered = phone.call && phone.call.answeredAt;
    phone.durationSeconds = answered ? Math.floor((Date.now() - answered) / 1000) : null;
    $("call-duration").textContent = answered ? clock(phone.durationSeconds) : "";
  }

  function clock(seconds) {
    const two = (value) => String(value).padStart(2, "0");
    const hours = Math.floor(seconds / 3600), minutes = Math.floor(seconds / 60) % 60;
    return (hours ? hours + ":" + two(minutes) : String(minutes)) + ":" + two(seconds % 60);
  }

  /// The meters once read the RMS of the last 43 ms every 100 ms on a linear scale (×4): a
  /// voice's or a beep's short peaks fell between readings, and what remained sat near the
  /// bottom, so the Input meter looked empty while getStats' `audioLevel` (a peak, 0-1) read 1.
  /// Now each reading covers the whole interval and the meter shows its peak in decibels
  /// (-60 dBFS empty, full scale full, the scale of `audioLevel`), falling back slowly.
  const METER_FALL_PER_READING = 0.08;
  function meterReading(peak, shown) {
    const now = peak > 0 ? Math.max(0, Math.min(1, 1 + 20 * Math.log10(peak) / 60)) : 0;
    return Math.max(now, shown - METER_FALL_PER_READING);
  }

  /// The RMS and the peak of the analyser's window (at least the 100 ms between readings).
  function levels(node) {
    if (!node) return { rms: 0, peak: 0 };
    const data = new Float32Array(node.fftSize);
    node.getFloatTimeDomainData(data);
    let sum = 0, peak = 0;
    for (const sample of data) { sum += sample * sample; peak = Math.max(peak, Math.abs(sample)); }
    return { rms: Math.sqrt(sum / data.length), peak };
  }
  const level = (node) => levels(node).rms;

  /// The loudest frequency in what we hear, when there is something to hear.
  function dominantFrequency(node) {
    if (!node || level(node) < 0.005) return null;
    const bins = new Float32Array(node.frequencyBinCount);
    node.getFloatFrequencyData(bins);
    let best = 1;
    for (let index = 2; index < bins.length; index++) if (bins[index] > bins[best]) best = index;
    // Parabolic interpolation between the neighbouring bins (in dB) refines the peak.
    const [a, b, c] = [bins[best - 1], bins[best], bins[best + 1] ?? bins[best]];
    const offset = (a - c) / (2 * (a - 2 * b + c)) || 0;
    return (best + Math.max(-0.5, Math.min(0.5, offset))) * phone.audio.sampleRate / node.fftSize;
  }

  function goertzel(data, rate, frequency) {
    const coefficient = 2 * Math.cos(2 * Math.PI * frequency / rate);
    let previous = 0, before = 0;
    for (const sample of data) { const next = sample + coefficient * previous - before; before = previous; previous = next; }
    return previous * previous + before * before - coefficient * previous * before;
  }

  /// DTMF in what we hear: the RFC 4733 events the far end sends are played out as tones.
  const dtmf = { candidate: null, count: 0, reported: null };
  function detectDTMF(node) {
    if (!node) return;
    const data = new Float32Array(2048);
    node.getFloatTimeDomainData(data);
    let energy = 0;
    for (const sample of data) energy += sample * sample;
    let digit = null;
    if (energy / data.length > 1e-6) {
      const share = (frequency) => 2 * goertzel(data, phone.audio.sampleRate, frequency) / (data.length * energy);
      const rows = ROWS.map(share), columns = COLUMNS.map(share);
      const row = rows.indexOf(Math.max(...rows)), column = columns.indexOf(Math.max(...columns));
      if (rows[row] > 0.2 && columns[column] > 0.2 && rows[row] + columns[column] > 0.6) digit = KEYS[row][column];
    }
    if (digit === dtmf.candidate) dtmf.count += 1; else { dtmf.candidate = digit; dtmf.count = 1; }
    if (dtmf.count === 2 && digit !== dtmf.reported) {
      dtmf.reported = digit;
      if (digit) { phone.heardDigits += digit; render(); }
    }
    if (dtmf.count >= 2 && digit === null) dtmf.reported = null;
  }

  setInterval(() => {
    const input = levels(phone.inputAnalyser), output = levels(phone.outputAnalyser);
    phone.inputLevel = input.rms;
    phone.outputLevel = output.rms;
    $("input-level").value = meterReading(input.peak, $("input-level").value);
    $("output-level").value = meterReading(output.peak, $("output-level").value);
    phone.heardFrequency = dominantFrequency(phone.outputAnalyser);
    render();
  }, 100);
  setInterval(() => detectDTMF(phone.outputAnalyser), 20);

  async function collectStats() {
    const call = phone.call;
    if (!call || !call.pc) return phone.stats;
    const report = await call.pc.getStats();
    const stats = {};
    let pairID = null, codecID = null, remoteRTT = null;
    report.forEach((entry) => {
      if (entry.type === "inbound-rtp" && entry.kind === "audio") {
        Object.assign(stats, {
          packetsReceived: entry.packetsReceived, packetsLost: entry.packetsLost, jitterMs: round(entry.jitter * 1000),
          concealedSamples: entry.concealedSamples, totalSamplesPlayed: entry.totalSamplesReceived,
          jitterBufferDelayMs: entry.jitterBufferEmittedCount ? round(1000 * entry.jitterBufferDelay / entry.jitterBufferEmittedCount) : 0,
          audioLevel: round(entry.audioLevel ?? 0),
        });
        codecID = entry.codecId;
      } else if (entry.type === "outbound-rtp" && entry.kind === "audio") {
        Object.assign(stats, { packetsSent: entry.packetsSent, bytesSent: entry.bytesSent });
        codecID = codecID || entry.codecId;
      } else if (entry.type === "remote-inbound-rtp") {
        if (entry.roundTripTime !== undefined) remoteRTT = entry.roundTripTime;
        stats.remotePacketsLost = entry.packetsLost;
      } else if (entry.type === "media-source" && entry.kind === "audio") {
        stats.localAudioLevel = round(entry.audioLevel ?? 0);
      } else if (entry.type === "transport") {
        stats.srtpProfile = entry.srtpCipher;
        pairID = entry.selectedCandidatePairId;
      }
    });
    if (codecID && report.get(codecID)) stats.codec = report.get(codecID).mimeType.replace(/^audio\//, "");
    const pair = pairID && report.get(pairID);
    // RTCP's round trip (remote-inbound-rtp) is precise but comes only with the far end's
    // receiver reports, seconds into a call; until then the selected ICE pair's STUN round trip
    // (whole milliseconds, known within a second); before either, unknown (null, shown "—"),
    // never a made-up 0.
    const rtt = remoteRTT ?? (pair && pair.currentRoundTripTime !== undefined ? pair.currentRoundTripTime : null);
    stats.rttMs = rtt === null ? null : round(rtt * 1000);
    if (pair) {
      const local = report.get(pair.localCandidateId), remote = report.get(pair.remoteCandidateId);
      if (local && remote) stats.candidatePair = local.address + ":" + local.port + " " + local.candidateType + " → " + remote.address + ":" + remote.port + " " + remote.candidateType;
    }
    phone.stats = stats;
    showStats(stats);
    return stats;
  }

  /// Each figure as a person reads it, in the order one looks for them; the raw name (as
  /// `parley --json` has it) stays in the row's title.
  const LABELS = [
    ["rttMs", "Round-trip time", " ms"], ["packetsLost", "Packets lost", ""], ["remotePacketsLost", "Packets lost by the far end", ""],
    ["jitterMs", "Jitter", " ms"], ["jitterBufferDelayMs", "Jitter buffer delay", " ms"],
    ["packetsReceived", "Packets received", ""], ["packetsSent", "Packets sent", ""], ["bytesSent", "Data sent", " bytes"],
    ["concealedSamples", "Concealed samples", ""], ["totalSamplesPlayed", "Samples received", ""],
    ["audioLevel", "Level heard (0–1)", ""], ["localAudioLevel", "Microphone level (0–1)", ""],
    ["codec", "Codec", ""], ["srtpProfile", "SRTP cipher", ""], ["candidatePair", "Network path", ""],
  ];
  phone.statLabels = Object.fromEntries(LABELS.map(([name, label, unit]) => [name, { label, unit }]));

  function showStats(stats) {
    const rows = LABELS.filter(([name]) => name in stats).map(([name, label, unit]) => {
      const row = document.createElement("tr");
      row.title = name;
      row.dataset.stat = name;
      const head = document.createElement("th"), cell = document.createElement("td");
      head.scope = "row";
      head.textContent = label;
      head.title = name;
      const value = stats[name];
      // The ICE pair's round trip has whole-millisecond steps: 0 there means under 1 ms.
      if (name === "rttMs" && value === 0) cell.textContent = "< 1 ms"; else
      cell.textContent = value === null || value === undefined || Number.isNaN(value) ? "—" : (typeof value === "number" ? value.toLocaleString("en", { maximumFractionDigits: value < 10 ? 2 : 1 }) : String(value)) + unit;
      row.append(head, cell);
      return row;
    });
    $("stats").tBodies[0].replaceChildren(...rows);
    $("stats").hidden = rows.length === 0;
  }
  phone.refreshStats = collectStats;

  // MARK: Who is online: the switch's /online.json (docs/browser.md), login names only

  async function refreshOnline() {
    try {
      const response = await fetch("/online.json", { cache: "no-store" });
      if (!response.ok) throw new Error("HTTP " + response.status);
      const body = await response.json();
      phone.online = Array.isArray(body.online) ? body.online.filter((name) => typeof name === "string") : [];
    } catch (error) {
      phone.online = [];
    }
    showOnline();
    return phone.online;
  }
  phone.refreshOnline = refreshOnline;

  function showOnline() {
    const others = phone.online.filter((name) => name !== phone.me);
    const list = $("online");
    list.replaceChildren(...others.map((name) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "person";
      button.textContent = name;
      button.title = "Call " + name;
      button.disabled = !phone.me || !!phone.call;
      button.addEventListener("click", () => { $("destination").value = name; dial(name); });
      item.append(button);
      return item;
    }));
    $("online-empty").hidden = others.length > 0;
  }
  phone.reattach = reattach;
  function round(value) { return Math.round(value * 1000) / 1000; }
  setInterval(() => { collectStats().catch((error) => note("stats: " + error.message)); }, 1000);
  setInterval(refreshOnline, 3000);

  // MARK: Wiring

  document.addEventListener("DOMContentLoaded", () => {
    $("login-form").addEventListener("submit", (event) => {
      event.preventDefault();
      if (!phone.audio) phone.audio = new AudioContext();
      connect($("login").value.trim(), $("password").value);
    });
    $("logout").addEventListener("click", () => { hangup(); phone.socket && phone.socket.close(); });
    $("dial-form").addEventListener("submit", (event) => { event.preventDefault(); dial($("destination").value.trim()); });
    $("answer").addEventListener("click", answer);
    $("decline").addEventListener("click", () => hangup("CALL_REJECTED", 21));
    $("hangup").addEventListener("click", () => hangup());
    $("mute").addEventListener("click", toggleMute);
    $("hold").addEventListener("click", toggleHold);
    for (const button of $("keypad").querySelectorAll("button")) button.addEventListener("click", () => sendDigit(button.textContent));
    document.addEventListener("keydown", (event) => {
      if (event.target instanceof HTMLInputElement) return;
      if (/^[0-9*#A-D]$/i.test(event.key)) sendDigit(event.key.toUpperCase());
    });
    setState("idle");
    refreshOnline();
    if (!window.isSecureContext || !navigator.mediaDevices) {
      status("This page is not a secure context, so the browser will not give it a microphone: open it over https:// " +
        "(parley switch --listen wss://… --cert … --key … --web) or on localhost. See docs/browser.md.");
      $("login-button").disabled = true;
    }
  });
})();
