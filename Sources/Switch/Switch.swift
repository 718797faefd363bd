/// Namespace of the embedded signalling switch (server side of the Verto dialect) and its bots.
/// The switch itself arrives with the signalling issue; nothing here pretends to serve yet.
public enum EmbeddedSwitch {}
