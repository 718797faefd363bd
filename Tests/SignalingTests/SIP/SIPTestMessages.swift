@testable import Signaling

/// SIP messages for the parser's tests, written for this project in the manner of RFC 4475's
/// torture tests: each exercises one of the RFC's cases with text of our own. Lines end in CRLF
/// (`crlf`); a line starting with spaces continues the field above it.
enum SIPTestMessages {
    static func crlf(_ text: String) -> [UInt8] { Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8) }

    /// Compact forms, whitespace everywhere RFC 3261 lets it be, folded fields, names in odd
    /// case, an escaped quote in a display name, repeated and comma-joined Via values.
    static let tangledInvite = crlf("""
    INVITE sip:carol@chicago.example.com;transport=udp SIP/2.0
    TO :
      sip:carol@chicago.example.com ;   tag = 1a2b
    f: "Ann \\"the ops\\" \\\\ Lee" <sip:ann@atlanta.example.com>
      ;tag=98asjd8
    maX-fOrWaRdS: 0068
    cAll-iD: lw.84b4c76e66710@pc33.atlanta.example.com
    Subject: a folded
       subject line
    v  : SIP  /   2.0
      /UDP
        192.0.2.2;rport ;branch=z9hG4bK390skdjuw
    Via: SIP/2.0/TCP proxy.example.net:5060;branch=z9hG4bK77ef4c2312983.1, SIP/2.0/UDP [2001:db8::9:1]:5070;received=2001:db8::9:255;branch=z9hG4bKas3-111
    CSeq: 0009
      INVITE
    m: <sip:ann@192.0.2.2>;expires=3600
    NewFangledHeader:   newfangled value
     continued newfangled value
    UnknownHeaderWithUnusualValue: ;;,,;;,;
    c: application/sdp
    l: 128

    v=0
    o=ann 53655765 2353687637 IN IP4 192.0.2.2
    s=-
    c=IN IP4 192.0.2.2
    t=0 0
    m=audio 49170 RTP/AVP 0
    a=rtpmap:0 PCMU/8000

    """)

    /// A method made of every character a token may hold.
    static let oddMethod = crlf("""
    !interesting-Method0123456789_*+`.%indeed'~ sip:1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*:&it+has=1,weird!*pas$wo~d_too.(doesn't-it)@example.com SIP/2.0
    Via: SIP/2.0/TCP host1.example.com;branch=z9hG4bK-.!%66*_+`'~
    To: "BEL:\\\u{07} NUL:\\\u{00} DEL:\\\u{7F}" <sip:1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*@example.com>
    From: token1~` token2'+_ token3*%!.- <sip:mundane@example.com>;fromParam''~+*_!.-%="работающий";tag=_token~1'+`*%!-.
    Call-ID: intmeth.word%ZK-!.*_+'@word`~)(><:\\/"][?}{
    CSeq: 139122385 !interesting-Method0123456789_*+`.%indeed'~
    Max-Forwards: 255
    extensionHeader-!.%*+_`'~: 大停電
    Content-Length: 0


    """)

    /// Escapes in URIs, an escaped NUL among them, and a `;` inside the user part.
    static let escapedURIs = crlf("""
    OPTIONS sip:user;par=u%40example.net@example.com SIP/2.0
    To: sip:%61lice@example.com
    From: <sip:null-%00-null@example.com>;tag=839923423
    Max-Forwards: 70
    Call-ID: escnull.39203ndfvkjdasfkq3w4otrq0adsfdfnavd
    CSeq: 14398234 OPTIONS
    Via: SIP/2.0/UDP host5.example.com;branch=z9hG4bKkdjuw
    Contact: <sip:%75se%72@host5.example.com;foo=%25ab>
    Contact: <sip:cal%6Cer@host5.example.net;%6C%72;n%61me=v%61lue%25%34%31>
    L: 0


    """)

    /// Transports a stack must carry without knowing them.
    static let transports = crlf("""
    OPTIONS sip:user@example.com SIP/2.0
    To: sip:user@example.com
    From: <sip:caller@example.com>;tag=323
    Max-Forwards: 70
    Call-ID: transports.kijh4akdnaqjkwendsasfdj
    Accept: application/sdp
    CSeq: 60 OPTIONS
    Via: SIP/2.0/UDP t1.example.com;branch=z9hG4bKkdjuw
    Via: SIP/2.0/SCTP t2.example.com;branch=z9hG4bKklasjdhf
    Via: SIP/2.0/TLS t3.example.com;branch=z9hG4bK2980unddj
    Via: SIP/2.0/UNKNOWN t4.example.com;branch=z9hG4bKasd0f3en
    Via: SIP/2.0/TCP t5.example.com;branch=z9hG4bK0a9idfnee
    l: 0


    """)

    /// A response with an empty reason phrase after its space.
    static let noReason = crlf("""
    SIP/2.0 100 \n\
    Via: SIP/2.0/UDP 192.0.2.105;branch=z9hG4bK2398ndaoe
    Call-ID: noreason.asndj203insdf99223ndf
    CSeq: 35 INVITE
    From: <sip:user@example.com>;tag=39ansfi3
    To: <sip:user@example.net>;tag=902jndnke3
    Content-Length: 0


    """)

    /// A reason phrase in UTF-8.
    static let utf8Reason = crlf("""
    SIP/2.0 200 = 2**3 * 5**2 но сто девяносто девять - простое
    Via: SIP/2.0/UDP 192.0.2.198;branch=z9hG4bK1324923
    Call-ID: unreason.1234ksdfak3j2erwedfsASdf
    CSeq: 35 INVITE
    From: sip:user@example.com;tag=11141343
    To: sip:user@example.edu;tag=2229
    Content-Length: 123
    Content-Type: application/sdp
    Contact: <sip:user@host198.example.com>

    v=0
    o=- 3149328700 0 IN IP4 192.0.2.198
    s=-
    c=IN IP4 192.0.2.198
    t=0 0
    m=audio 49172 RTP/AVP 0
    a=rtpmap:0 PCMU/8000

    """)

    /// Contact parameters inside and outside the brackets, and a bare addr-spec whose
    /// parameters belong to the field.
    static let contactParameters = crlf("""
    REGISTER sip:example.com SIP/2.0
    Via: SIP/2.0/UDP saturn.example.com:5060;branch=z9hG4bKkdjuw
    Max-Forwards: 70
    From: sip:watson@example.com;tag=DkfVgjkrtMwaerKKpe
    To: sip:watson@example.com
    Call-ID: cparam01.70710@saturn.example.com
    CSeq: 2 REGISTER
    Contact: sip:+19725552222@gw1.example.net;unknownparam
    Contact: <sip:+19725552222@gw1.example.net;unknownparam>;expires=60
    Contact: "Watson at home" <sip:watson@[2001:db8::10]:5070;transport=tcp>;q=0.5, sip:watson@192.0.2.4;expires=0
    l: 0


    """)
}
