/// The IVR bot `parley demo` calls: a welcome menu whose prompts are tones, so the recording
/// shows which branch the call took (440 Hz welcome, 660 Hz sales, 330 Hz goodbye).
enum DemoScript {
    static let yaml = """
        description: parley demo IVR
        start: welcome
        steps:
          welcome:
            type: menu
            prompt: tone:440/1s
            options:
              1: sales
              9: goodbye
            timeout: 5
            retries: 1
            on_timeout: goodbye
            on_invalid: goodbye
          sales:
            type: play
            prompt: tone:660/1s
            next: welcome
          goodbye:
            type: hangup
            prompt: tone:330/500ms
        """

    /// What each prompt frequency means, for the summary of the recording.
    static let prompts: [(frequency: Double, name: String)] = [(440, "welcome menu"), (660, "sales"), (330, "goodbye")]
}
