/// Every piece of UI text of the rendered reports, by key. Each language has one table
/// (``ReportStrings/en``, ``ReportStrings/ar``) holding every key (a test checks that both have
/// the same keys and the same `{placeholders}`).
package enum ReportText: String, CaseIterable, Sendable {
    case title, brand, contents
    case scopeRun, scopePeriod, scopePeriodFrom, scopePeriodTo, scopeAll
    case runStarted, verificationTime, fixedTime, runStatus, trustSnapshot, signedProofs, merkleRoot, inputs, runs
    case statusRunning, statusFinished, statusInterrupted
    case generatedAt, generator
    case sectionOverview, sectionFailures, sectionTimeline, sectionTrust, sectionChanges, sectionImages, sectionConsent
    case sectionTransactions, sectionIngest
    case cardTransactions, cardReused, cardValidNow, cardInvalidNow, cardIndeterminateNow, cardChanged, cardExpiring
    case verdictValid, verdictInvalid, verdictIndeterminate, noCaptureTime
    case verdictNowHeading, verdictCaptureHeading, captureToNowHeading
    case failuresByCheck, failuresByDS, failuresByIACA, failuresBySource
    case noFailures, noIssuers, nothingInScope, unknownCheck, checkSummariesInEnglish, chartTop
    case noCertificate, unknownCertificate
    case timelineIntro, timelineIntroMonth, timelineTable, noTimeline, withoutCaptureTime, failureRate
    case trustSnapshots, certificatesSeen, trustSummary, noCertificates
    case roleDS, roleIACA, expiryExpired, expiryWithin30, expiryWithin90, expiryLater, expiryUnknown, daysLeft
    case changesIntro, noChanges, listTruncated
    case imagesSummary, noImages, imageKept, imageReencoded, imageRejected
    case consentIntro, consentNone, consentValid, consentExpired, consentNotYetGranted
    case transactionsAll, transactionsTruncated, theCSV
    case ingestSummary, noIngestFailures
    case personalDataNone, personalDataIncluded, footerGenerated
    case columnAtCapture, columnNow, columnTransactions, columnShare, columnResults, columnCheck, columnMeaning
    case columnSource, columnValid, columnInvalid, columnIndeterminate, columnNotValid, columnCertificate
    case columnFingerprint, columnPeriod, columnSnapshot, columnVerificationTimes, columnRole, columnNotAfter
    case columnExpiry, columnReference, columnName, columnPrevious, columnFailingChecks, columnPreviousRun, columnTrustChange
    case columnOutcome, columnUploads, columnBytesBefore, columnBytesAfter, columnConsent, columnCaptured
    case columnProof, columnHolder, columnInput, columnCode, columnReason, columnFailureClass
    case classAuthenticity, classValidity, classPolicy
    case unitBytes, unitKB, unitMB, unitGB, utc, dateTimeSeparator
    case sectionKiosks, kioskHeading, kioskLagNote, kioskReceivedCount, kioskReceivedCountValue, kioskReceived
    case kioskLastSequence, kioskLastSequenceValue, kioskSyncLag, kioskSyncLagValue, kioskDiffering, kioskTrustAtKiosk
    case kioskTrustAtCentre, kioskVerdictPairs, kioskDifferences, kioskMoreNotListed
    case columnAtKiosk, columnAtCentre, columnRecords, columnSequence, columnRecord, columnFailingAtCentreOnly
    case columnFailingAtKioskOnly
    case month1, month2, month3, month4, month5, month6, month7, month8, month9, month10, month11, month12
}

/// The strings of one language, with `{name}` placeholders filled by ``format(_:_:)``.
package struct ReportStrings: Sendable {
    package let language: ReportLanguage
    package let table: [ReportText: String]

    package init(_ language: ReportLanguage) {
        self.language = language
        self.table = Self.table(for: language)
    }

    /// The table of `language`.
    package static func table(for language: ReportLanguage) -> [ReportText: String] {
        switch language {
        case .en: en
        case .ar: ar
        }
    }

    /// The text of `key` (English when the language's table lacks it, which a test forbids).
    package subscript(key: ReportText) -> String {
        table[key] ?? Self.en[key] ?? key.rawValue
    }

    /// The text of `key` with each `{name}` replaced by `values[name]`.
    package func format(_ key: ReportText, _ values: [String: String]) -> String {
        var text = self[key]
        for (name, value) in values {
            text = text.replacingOccurrences(of: "{\(name)}", with: value)
        }
        return text
    }

    // MARK: English

    package static let en: [ReportText: String] = [
        .title: "Compliance report",
        .brand: "mdocverify · ISO/IEC 18013-5 verification",
        .contents: "Contents",
        .scopeRun: "Run {run}",
        .scopePeriod: "Transactions captured from {from} to {to}",
        .scopePeriodFrom: "Transactions captured from {from}",
        .scopePeriodTo: "Transactions captured until {to}",
        .scopeAll: "All transactions",
        .runStarted: "Run",
        .verificationTime: "Verification time",
        .fixedTime: "(fixed with {option})",
        .runStatus: "Status",
        .statusRunning: "running",
        .statusFinished: "finished",
        .statusInterrupted: "interrupted (resumed by a later run)",
        .trustSnapshot: "Trust snapshot",
        .signedProofs: "Signed proofs",
        .merkleRoot: "Merkle root",
        .inputs: "Inputs",
        .runs: "Runs",
        .generatedAt: "Report generated",
        .generator: "Generator",
        .sectionOverview: "Overview",
        .sectionFailures: "Failures",
        .sectionTimeline: "Timeline",
        .sectionTrust: "Trust",
        .sectionChanges: "Changes",
        .sectionImages: "Images",
        .sectionConsent: "Consent",
        .sectionTransactions: "Transactions",
        .sectionIngest: "Rejected inputs",
        .sectionKiosks: "Kiosks",
        .kioskHeading: "Kiosk {kiosk}",
        .kioskLagNote: "Sync lag: from sealing at the kiosk to receipt at the centre.",
        .kioskReceivedCount: "Records received",
        .kioskReceivedCountValue: "{count} ({sync} by sync, {files} as carried files)",
        .kioskReceived: "Received",
        .kioskLastSequence: "Last sequence number",
        .kioskLastSequenceValue: "{last} ({missing} below it not received)",
        .kioskSyncLag: "Sync lag",
        .kioskSyncLagValue: "min {min} s, average {avg} s, max {max} s",
        .kioskDiffering: "Verdicts differing",
        .kioskTrustAtKiosk: "Trust at the kiosk",
        .kioskTrustAtCentre: "Trust at the centre",
        .kioskVerdictPairs: "Verdicts: kiosk, then centre",
        .kioskDifferences: "Verdicts that differ, and why",
        .kioskMoreNotListed: "+{count} more not listed.",
        .columnAtKiosk: "At the kiosk",
        .columnAtCentre: "At the centre",
        .columnRecords: "Records",
        .columnSequence: "Sequence",
        .columnRecord: "Record",
        .columnFailingAtCentreOnly: "Failing at the centre only",
        .columnFailingAtKioskOnly: "Failing at the kiosk only",
        .cardTransactions: "transactions",
        .cardReused: "{n} reused from earlier runs",
        .cardValidNow: "valid now",
        .cardInvalidNow: "invalid now",
        .cardIndeterminateNow: "indeterminate now",
        .cardChanged: "verdicts changed since the previous verification",
        .cardExpiring: "issuer certificates expired or expiring within 30 days",
        .verdictValid: "valid",
        .verdictInvalid: "invalid",
        .verdictIndeterminate: "indeterminate",
        .noCaptureTime: "no capture time",
        .verdictNowHeading: "Verdict now (at the verification time)",
        .verdictCaptureHeading: "Verdict at the capture time",
        .captureToNowHeading: "From capture to now",
        .failuresByCheck: "By check",
        .failuresByDS: "By Document Signer certificate",
        .failuresByIACA: "By IACA certificate",
        .failuresBySource: "By source",
        .noFailures: "No check failed.",
        .noIssuers: "No document with an issuer certificate in scope.",
        .nothingInScope: "No transaction in scope.",
        .unknownCheck: "not in this build's check catalogue",
        .checkSummariesInEnglish: "Check descriptions are given in English.",
        .chartTop: "The chart shows the first {n} of {total}; the table lists all.",
        .noCertificate: "no certificate recorded",
        .unknownCertificate: "certificate not in the store",
        .timelineIntro: "Transactions by capture day (UTC), stacked by verdict now; the line is the share not valid.",
        .timelineIntroMonth: "Transactions by capture month (UTC), stacked by verdict now; the line is the share not valid.",
        .timelineTable: "Figures by period",
        .noTimeline: "No transaction in scope has a capture time.",
        .withoutCaptureTime: "{n} transactions without a capture time are not on the timeline.",
        .failureRate: "not valid",
        .trustSnapshots: "Trust-store snapshots used",
        .certificatesSeen: "Issuer certificates seen",
        .trustSummary: "{expired} expired, {soon} expiring within 30 days, {later} within 90 days, at {time}.",
        .noCertificates: "No issuer certificate in scope.",
        .roleDS: "Document Signer",
        .roleIACA: "IACA",
        .expiryExpired: "expired",
        .expiryWithin30: "expires within 30 days",
        .expiryWithin90: "expires within 90 days",
        .expiryLater: "valid beyond 90 days",
        .expiryUnknown: "unknown",
        .daysLeft: "{n} days",
        .changesIntro: "Transactions whose verdict now differs from their previous verification (for example valid to invalid after a revocation).",
        .noChanges: "No verdict changed.",
        .listTruncated: "Showing {shown} of {total}; the JSON report has the same rows.",
        .imagesSummary: "{n} document-scan uploads: {before} received, {after} kept.",
        .noImages: "No document-scan uploads in scope.",
        .imageKept: "kept as received",
        .imageReencoded: "re-encoded under the size limit",
        .imageRejected: "rejected",
        .consentIntro: "Transactions by the state of the holder's consent at the verification time.",
        .consentNone: "no consent recorded",
        .consentValid: "consent valid",
        .consentExpired: "consent expired (no data kept)",
        .consentNotYetGranted: "consent not yet granted",
        .transactionsAll: "All {total} transactions, not valid first.",
        .transactionsTruncated: "The first {shown} of {total} transactions, not valid first; {csv} lists them all.",
        .theCSV: "the transactions CSV",
        .ingestSummary: "{n} inputs did not become transactions.",
        .noIngestFailures: "Every input was read.",
        .personalDataNone: "This report contains no personal data: identifiers, digests and outcomes only.",
        .personalDataIncluded: "This report contains personal data (element values). Handle it under your data-protection rules.",
        .footerGenerated: "Generated by {generator} on {time}.",
        .columnAtCapture: "At capture",
        .columnNow: "Now",
        .columnTransactions: "Transactions",
        .columnShare: "Share",
        .columnResults: "Failed results",
        .columnCheck: "Check",
        .columnMeaning: "What it checks",
        .columnSource: "Source",
        .columnValid: "Valid",
        .columnInvalid: "Invalid",
        .columnIndeterminate: "Indeterminate",
        .columnNotValid: "Not valid",
        .columnCertificate: "Certificate",
        .columnFingerprint: "SHA-256",
        .columnPeriod: "Period",
        .columnSnapshot: "Snapshot (SHA-256)",
        .columnVerificationTimes: "Verification time",
        .columnRole: "Role",
        .columnNotAfter: "Valid until",
        .columnExpiry: "Expiry",
        .columnReference: "Reference",
        .columnName: "Transaction",
        .columnPrevious: "Before",
        .columnFailingChecks: "Failing checks",
        .columnFailureClass: "Failure class",
        .classAuthenticity: "authenticity",
        .classValidity: "validity",
        .classPolicy: "policy",
        .columnPreviousRun: "Previous run",
        .columnTrustChange: "Trust change",
        .columnOutcome: "Outcome",
        .columnUploads: "Uploads",
        .columnBytesBefore: "Size received",
        .columnBytesAfter: "Size kept",
        .columnConsent: "Consent",
        .columnCaptured: "Captured",
        .columnProof: "Proof",
        .columnHolder: "Holder",
        .columnInput: "Input",
        .columnCode: "Code",
        .columnReason: "Reason",
        .unitBytes: "bytes",
        .unitKB: "kB",
        .unitMB: "MB",
        .unitGB: "GB",
        .utc: "UTC",
        .dateTimeSeparator: ", ",
        .month1: "Jan", .month2: "Feb", .month3: "Mar", .month4: "Apr", .month5: "May", .month6: "Jun",
        .month7: "Jul", .month8: "Aug", .month9: "Sep", .month10: "Oct", .month11: "Nov", .month12: "Dec",
    ]

    // MARK: Arabic

    package static let ar: [ReportText: String] = [
        .title: "تقرير الامتثال",
        .brand: "mdocverify · التحقق وفق ISO/IEC 18013-5",
        .contents: "المحتويات",
        .scopeRun: "عملية التحقق {run}",
        .scopePeriod: "المعاملات الملتقطة من {from} إلى {to}",
        .scopePeriodFrom: "المعاملات الملتقطة منذ {from}",
        .scopePeriodTo: "المعاملات الملتقطة حتى {to}",
        .scopeAll: "جميع المعاملات",
        .runStarted: "العملية",
        .verificationTime: "وقت التحقق",
        .fixedTime: "(محدد بالخيار {option})",
        .runStatus: "الحالة",
        .statusRunning: "قيد التشغيل",
        .statusFinished: "مكتملة",
        .statusInterrupted: "متوقفة (تستأنفها عملية لاحقة)",
        .trustSnapshot: "لقطة مخزن الثقة",
        .signedProofs: "الإثباتات الموقعة",
        .merkleRoot: "جذر ميركل",
        .inputs: "المدخلات",
        .runs: "العمليات",
        .generatedAt: "تاريخ إنشاء التقرير",
        .generator: "المُنشئ",
        .sectionOverview: "نظرة عامة",
        .sectionFailures: "الإخفاقات",
        .sectionTimeline: "التسلسل الزمني",
        .sectionTrust: "الثقة",
        .sectionChanges: "التغييرات",
        .sectionImages: "الصور",
        .sectionConsent: "الموافقة",
        .sectionTransactions: "المعاملات",
        .sectionIngest: "المدخلات المرفوضة",
        .sectionKiosks: "الأكشاك",
        .kioskHeading: "الكشك {kiosk}",
        .kioskLagNote: "تأخر المزامنة: من الختم في الكشك إلى الاستلام في المركز.",
        .kioskReceivedCount: "السجلات المستلمة",
        .kioskReceivedCountValue: "{count} ({sync} بالمزامنة، {files} ملفات منقولة)",
        .kioskReceived: "الاستلام",
        .kioskLastSequence: "آخر رقم تسلسلي",
        .kioskLastSequenceValue: "{last} ({missing} أقل منه لم تُستلم)",
        .kioskSyncLag: "تأخر المزامنة",
        .kioskSyncLagValue: "الأدنى {min} ث، المتوسط {avg} ث، الأقصى {max} ث",
        .kioskDiffering: "أحكام مختلفة",
        .kioskTrustAtKiosk: "الثقة في الكشك",
        .kioskTrustAtCentre: "الثقة في المركز",
        .kioskVerdictPairs: "الأحكام: في الكشك ثم في المركز",
        .kioskDifferences: "الأحكام المختلفة وأسبابها",
        .kioskMoreNotListed: "و{count} غيرها غير مدرجة.",
        .columnAtKiosk: "في الكشك",
        .columnAtCentre: "في المركز",
        .columnRecords: "السجلات",
        .columnSequence: "التسلسل",
        .columnRecord: "السجل",
        .columnFailingAtCentreOnly: "تفشل في المركز فقط",
        .columnFailingAtKioskOnly: "تفشل في الكشك فقط",
        .cardTransactions: "معاملة",
        .cardReused: "{n} أُعيد استخدامها من عمليات سابقة",
        .cardValidNow: "صالحة الآن",
        .cardInvalidNow: "غير صالحة الآن",
        .cardIndeterminateNow: "غير محسومة الآن",
        .cardChanged: "أحكام تغيّرت منذ التحقق السابق",
        .cardExpiring: "شهادات مُصدِرين منتهية أو تنتهي خلال ٣٠ يومًا",
        .verdictValid: "صالحة",
        .verdictInvalid: "غير صالحة",
        .verdictIndeterminate: "غير محسومة",
        .noCaptureTime: "بلا وقت التقاط",
        .verdictNowHeading: "الحكم الآن (في وقت التحقق)",
        .verdictCaptureHeading: "الحكم في وقت الالتقاط",
        .captureToNowHeading: "من الالتقاط إلى الآن",
        .failuresByCheck: "حسب الفحص",
        .failuresByDS: "حسب شهادة موقّع المستند (DS)",
        .failuresByIACA: "حسب شهادة IACA",
        .failuresBySource: "حسب المصدر",
        .noFailures: "لم يفشل أي فحص.",
        .noIssuers: "لا يوجد ضمن النطاق مستند بشهادة مُصدِر.",
        .nothingInScope: "لا توجد معاملات ضمن النطاق.",
        .unknownCheck: "غير موجود في دليل الفحوص لهذا الإصدار",
        .checkSummariesInEnglish: "أوصاف الفحوص واردة باللغة الإنجليزية، ومعرّفات الفحوص كما هي.",
        .chartTop: "يعرض الرسم أول {n} من {total}؛ والجدول يسردها كلها.",
        .noCertificate: "لم تُسجَّل شهادة",
        .unknownCertificate: "الشهادة غير موجودة في قاعدة البيانات",
        .timelineIntro: "المعاملات حسب يوم الالتقاط (بالتوقيت العالمي)، مكدّسة حسب الحكم الآن؛ والخط يمثل نسبة غير الصالحة.",
        .timelineIntroMonth: "المعاملات حسب شهر الالتقاط (بالتوقيت العالمي)، مكدّسة حسب الحكم الآن؛ والخط يمثل نسبة غير الصالحة.",
        .timelineTable: "الأرقام حسب الفترة",
        .noTimeline: "لا توجد ضمن النطاق معاملة لها وقت التقاط.",
        .withoutCaptureTime: "{n} معاملة بلا وقت التقاط لا تظهر في التسلسل الزمني.",
        .failureRate: "غير صالحة",
        .trustSnapshots: "لقطات مخزن الثقة المستخدمة",
        .certificatesSeen: "شهادات المُصدِرين التي ظهرت",
        .trustSummary: "{expired} منتهية، و{soon} تنتهي خلال ٣٠ يومًا، و{later} خلال ٩٠ يومًا، في {time}.",
        .noCertificates: "لا توجد شهادة مُصدِر ضمن النطاق.",
        .roleDS: "موقّع المستند",
        .roleIACA: "IACA",
        .expiryExpired: "منتهية",
        .expiryWithin30: "تنتهي خلال ٣٠ يومًا",
        .expiryWithin90: "تنتهي خلال ٩٠ يومًا",
        .expiryLater: "صالحة لأكثر من ٩٠ يومًا",
        .expiryUnknown: "غير معروف",
        .daysLeft: "{n} يومًا",
        .changesIntro: "المعاملات التي يختلف حكمها الآن عن تحققها السابق (مثلًا من صالحة إلى غير صالحة بعد إلغاء شهادة).",
        .noChanges: "لم يتغير أي حكم.",
        .listTruncated: "يُعرض {shown} من {total}؛ وتقرير JSON يتضمن الصفوف نفسها.",
        .imagesSummary: "{n} صورة مستند مرفوعة: استُلم {before} واحتُفظ بـ{after}.",
        .noImages: "لا توجد صور مستندات مرفوعة ضمن النطاق.",
        .imageKept: "محفوظة كما استُلمت",
        .imageReencoded: "أُعيد ترميزها ضمن حد الحجم",
        .imageRejected: "مرفوضة",
        .consentIntro: "المعاملات حسب حالة موافقة حامل الوثيقة في وقت التحقق.",
        .consentNone: "لا توجد موافقة مسجلة",
        .consentValid: "موافقة سارية",
        .consentExpired: "موافقة منتهية (لم تُحفظ بيانات)",
        .consentNotYetGranted: "موافقة لم تُمنح بعد",
        .transactionsAll: "جميع المعاملات ({total})، غير الصالحة أولًا.",
        .transactionsTruncated: "أول {shown} من {total} معاملة، غير الصالحة أولًا؛ والملف {csv} يسردها كلها.",
        .theCSV: "ملف CSV للمعاملات",
        .ingestSummary: "{n} من المدخلات لم تصبح معاملات.",
        .noIngestFailures: "قُرئت جميع المدخلات.",
        .personalDataNone: "لا يحتوي هذا التقرير على بيانات شخصية: معرّفات وبصمات ونتائج فقط.",
        .personalDataIncluded: "يحتوي هذا التقرير على بيانات شخصية (قيم العناصر). تعامل معه وفق قواعد حماية البيانات لديك.",
        .footerGenerated: "أنشأه {generator} في {time}.",
        .columnAtCapture: "عند الالتقاط",
        .columnNow: "الآن",
        .columnTransactions: "المعاملات",
        .columnShare: "النسبة",
        .columnResults: "النتائج الفاشلة",
        .columnCheck: "الفحص",
        .columnMeaning: "ما يتحقق منه",
        .columnSource: "المصدر",
        .columnValid: "صالحة",
        .columnInvalid: "غير صالحة",
        .columnIndeterminate: "غير محسومة",
        .columnNotValid: "غير صالحة (الكل)",
        .columnCertificate: "الشهادة",
        .columnFingerprint: "SHA-256",
        .columnPeriod: "الفترة",
        .columnSnapshot: "اللقطة (SHA-256)",
        .columnVerificationTimes: "وقت التحقق",
        .columnRole: "الدور",
        .columnNotAfter: "صالحة حتى",
        .columnExpiry: "الانتهاء",
        .columnReference: "المرجع",
        .columnName: "المعاملة",
        .columnPrevious: "قبل",
        .columnFailingChecks: "الفحوص الفاشلة",
        .columnFailureClass: "نوع الإخفاق",
        .classAuthenticity: "الأصالة",
        .classValidity: "الصلاحية",
        .classPolicy: "السياسة",
        .columnPreviousRun: "العملية السابقة",
        .columnTrustChange: "تغيّر الثقة",
        .columnOutcome: "النتيجة",
        .columnUploads: "الصور",
        .columnBytesBefore: "الحجم المستلم",
        .columnBytesAfter: "الحجم المحفوظ",
        .columnConsent: "الموافقة",
        .columnCaptured: "وقت الالتقاط",
        .columnProof: "الإثبات",
        .columnHolder: "حامل الوثيقة",
        .columnInput: "المُدخل",
        .columnCode: "الرمز",
        .columnReason: "السبب",
        .unitBytes: "بايت",
        .unitKB: "ك.بايت",
        .unitMB: "م.بايت",
        .unitGB: "ج.بايت",
        .utc: "بالتوقيت العالمي",
        .dateTimeSeparator: "، ",
        .month1: "يناير", .month2: "فبراير", .month3: "مارس", .month4: "أبريل", .month5: "مايو", .month6: "يونيو",
        .month7: "يوليو", .month8: "أغسطس", .month9: "سبتمبر", .month10: "أكتوبر", .month11: "نوفمبر", .month12: "ديسمبر",
    ]
}
