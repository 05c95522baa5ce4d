/// The fixed names of the API contract.
public enum BusNames {
    public static let service = "org.orientationd.Orientation1"
    public static let managerPath = "/org/orientationd/Orientation1"
    public static let managerInterface = "org.orientationd.Orientation1"
    public static let clientInterface = "org.orientationd.Orientation1.Client"
    public static let clientPathPrefix = "/org/orientationd/Orientation1/Client/"
    public static let limitExceeded = "org.orientationd.Orientation1.Error.LimitExceeded"
    public static let notAuthorized = "org.orientationd.Orientation1.Error.NotAuthorized"
}
