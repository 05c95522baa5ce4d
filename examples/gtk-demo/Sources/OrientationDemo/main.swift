import Glibc
import OrientationClient

exit(DemoCommand.main(Array(CommandLine.arguments.dropFirst())))
